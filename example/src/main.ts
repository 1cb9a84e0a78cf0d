import { HttpApp } from "fw";
import { table } from "./.fw/routes.js";
import { layout } from "./layout.js";

// The app never listens itself: `main` reads the command (none, dev, routes) and runs it.
process.exitCode = await new HttpApp({ routes: table(), layout }).main();
