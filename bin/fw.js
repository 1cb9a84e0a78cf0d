#!/usr/bin/env node
// The `fw` command. The code is fw's compiled TypeScript (npm run build writes dist/).
import { main } from "../dist/runtime/dev/cli.js";

process.exitCode = await main(process.argv.slice(2));
