import { exampleApp } from "./app.js";

// The app never listens itself: `main` reads the command (none, dev, routes) and runs it.
process.exitCode = await exampleApp().main();
