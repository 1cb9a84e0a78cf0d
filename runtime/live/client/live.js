// PLACEHOLDER — replaced by the fw/live browser client (branch h/live-client). It only says it
// is here, so the server side (GET /fw/live.js, its hash and caching) can be built and tested.
console.info("fw/live: placeholder client loaded (the real client comes with h/live-client).");
