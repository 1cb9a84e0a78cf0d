import { Cache } from "fw/cache";

/**
 * The example's cache (fw/cache): kept in the app's database (an UNLOGGED table every process
 * shares), with each process's quick layer in front. The posts' Index keeps what it reads for
 * signed-out visitors here, tagged `posts`: every write through the Post store publishes that
 * topic (the same event that refreshes the live page), which drops it in every process.
 * `FW_CACHE=off` turns it off (the bench compares both).
 */
export const cache = new Cache();
