// `node bench/lib/probe.mjs <url>`: GETs <url> one request after another (after one unmeasured
// request that opens the connection) until its stdin closes, then prints the times in ms as
// JSON on stdout. A process of its own, so what the bench's own process does meanwhile (a
// hundred live sockets' renders to apply) does not stretch the times it measures.
const url = process.argv[2];
const times = [];
let going = true;
process.stdin.on("end", () => (going = false)).resume();
await (await fetch(url)).text();
while (going) {
  const t0 = performance.now();
  const response = await fetch(url);
  await response.text();
  times.push(performance.now() - t0);
}
process.stdout.write(JSON.stringify(times));
