import { processDatabase } from "fw/db";
import { Guestbook } from "./guestbook.js";

/**
 * What handlers may ask for by name in their second parameter. The generated table hands each
 * one to the handlers that name it; a handler asking for something missing here fails the build.
 */
export const guestbook = new Guestbook(processDatabase());
