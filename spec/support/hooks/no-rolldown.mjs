// `node --import ./no-rolldown.mjs …`: the process resolves `rolldown` as if it were not installed
// (what a user without it sees), whatever node_modules holds.
import { register } from "node:module";

register(new URL("./no-rolldown-hooks.mjs", import.meta.url));
