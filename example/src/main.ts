import { HttpApp, isDevMode } from "fw";
import { table } from "./.fw/routes.js";
import { seedDemoUser } from "./auth.js";
import { layout } from "./layout.js";

// In dev only, a demo account to sign in with (README: demo@example.com / demo-password). Never
// in production: `isDevMode()` is false without `dev`, and under NODE_ENV=production whatever
// the arguments say (HttpApp then serves production too).
if (isDevMode()) await seedDemoUser();

// The app never listens itself: `main` reads the command (none, dev, routes) and runs it.
process.exitCode = await new HttpApp({ routes: table(), layout }).main();
