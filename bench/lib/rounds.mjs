// Interleaved wrk rounds over groups of rows (A B C, C B A, A B C …), each row's warm-up first, with the
// ratios to a group's baseline taken round by round: what the throughput, db, json and files parts share.
// A row may bring its own load instead of wrk (`load`: the files part's uploads).
import { log, pairedRatios, summary } from "./util.mjs";
import { wrk } from "./wrk.mjs";

/**
 * Measures every group in turn. A group: { id, baseline?, rounds?, warmup?, rows: [{ id, url, server, headers?,
 * script?, expectNon2xx?, baseline?, load? }] }. Fills each row's runs, rps, p99, other, cpu and (with a
 * baseline) roundRatios, ratio, ratioOfMedians, cpuRoundRatios; drops the row's live server handle and load.
 * `load({ warmup, serverPid })`, when a row has one, runs instead of wrk and resolves with what wrk's
 * result holds (rps, p99, non2xx, total, other, cpuUs): its own unit of work per second and per CPU time.
 */
export async function measureGroups(groups, { seconds, rounds, warmup, connections, core, what }) {
  for (const group of groups) {
    // A group may ask for a longer warm-up than the part's (a side whose code tiers up slowly): a
    // pass of that length, then the part's own, so that no row idles longer before its first round
    // than with the part's warm-up alone (an idle after load slows a server: FINDINGS 14, 41).
    const passes = group.warmup !== undefined && group.warmup > warmup ? [group.warmup, warmup] : [warmup];
    log(`${what}: ${group.id}: warm-up ${passes.join(" s, then ")} s each`);
    for (const seconds of passes) {
      for (const row of group.rows) {
        if (row.load !== undefined) await row.load({ warmup: true });
        else await wrk({ url: row.url, seconds, connections, core, headers: row.headers, script: row.script });
        row.runs = [];
      }
    }
    // A group may ask for more rounds than the part's (a target row whose sides are close).
    const groupRounds = group.rounds ?? rounds;
    for (let round = 0; round < groupRounds; round++) {
      // A B C, then C B A: no row is always measured first (right after the warm-up of the
      // last, or with the database's caches as the previous row left them).
      for (const row of round % 2 === 0 ? group.rows : [...group.rows].reverse()) {
        const result =
          row.load !== undefined
            ? await row.load({ warmup: false, serverPid: row.server.pid })
            : await wrk({ url: row.url, seconds, connections, core, headers: row.headers, script: row.script, serverPid: row.server.pid });
        if (!row.expectNon2xx && result.non2xx > 0) throw new Error(`${group.id}/${row.id}: ${result.non2xx} non-2xx/3xx answers`);
        if (row.expectNon2xx && result.non2xx !== result.total) throw new Error(`${group.id}/${row.id}: some answers were 2xx`);
        if (result.socketErrors !== undefined) log(`  ${row.id}: socket errors: ${result.socketErrors}`);
        row.runs.push(result);
      }
      log(`  round ${round + 1}/${groupRounds}: ${group.rows.map((r) => `${r.id} ${Math.round(r.runs[round].rps)} (others ${Math.round(r.runs[round].other * 100)} %)`).join(", ")}`);
    }
    for (const row of group.rows) {
      row.rps = summary(row.runs.map((r) => r.rps));
      row.p99 = summary(row.runs.map((r) => r.p99));
      row.other = summary(row.runs.map((r) => r.other));
      row.cpu = summary(row.runs.map((r) => r.cpuUs));
      delete row.server; // a live process handle: not part of the results
      delete row.load;
    }
    if (group.baseline !== undefined) {
      for (const row of group.rows) {
        // a row may name its own baseline: the run that received the same requests
        row.baseline ??= group.baseline;
        const base = group.rows.find((r) => r.id === row.baseline);
        // paired: the ratio round by round (each round's two runs are seconds apart), then its median;
        // the same ratio by the servers' CPU time per request (less CPU is faster). A round either
        // side served nothing in is left out (util.mjs pairedRatios) and counted.
        const { roundRatios, cpuRoundRatios, dropped } = pairedRatios(row.runs, base.runs);
        row.roundRatios = roundRatios;
        row.ratio = roundRatios?.median;
        row.ratioOfMedians = row.rps.median / base.rps.median;
        row.cpuRoundRatios = cpuRoundRatios;
        if (dropped > 0) {
          row.droppedRounds = dropped;
          log(`  ${group.id}/${row.id}: ${dropped} of ${row.runs.length} rounds left out of its ratio to ${base.id}: one side served no request in them`);
        }
      }
    }
  }
  return groups;
}
