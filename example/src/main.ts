import { HttpApp } from "fw";
import { table } from "./.fw/routes.js";
import { seedDemoUser } from "./auth.js";
import { layout } from "./layout.js";

// In dev only, a demo account to sign in with (README: demo@example.com / demo-password).
if (process.argv[2] === "dev") await seedDemoUser();

// The app never listens itself: `main` reads the command (none, dev, routes) and runs it.
process.exitCode = await new HttpApp({ routes: table(), layout }).main();
