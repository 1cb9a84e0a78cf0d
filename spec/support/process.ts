import { spawn } from "node:child_process";

export interface Ran {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
}

/** Runs a Node script to its end; FW_SECRET is unset unless given. */
export function runNode(script: string, args: readonly string[] = [], env: Record<string, string | undefined> = {}, cwd = process.cwd()): Promise<Ran> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [script, ...args], { cwd, env: { ...process.env, FW_SECRET: undefined, ...env } });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (err += chunk));
    child.on("close", (code) => done({ code, out, err }));
  });
}

/** Starts a Node app on an ephemeral port and resolves its URL once it prints its banner. */
export function bootNode(script: string, args: readonly string[], env: Record<string, string | undefined>, cwd = process.cwd()) {
  const child = spawn(process.execPath, [script, ...args], { cwd, env: { ...process.env, PORT: "0", ...env } });
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk) => (out += chunk));
  child.stderr.on("data", (chunk) => (err += chunk));
  const exited = new Promise<number | null>((done) => child.on("close", done));
  const url = new Promise<string>((ready, fail) => {
    child.stdout.on("data", () => {
      const match = /serving \d+ routes on (http:\/\/[^\s"]+)/.exec(out);
      if (match?.[1] !== undefined) ready(match[1]);
    });
    void exited.then(() => fail(new Error(`exited before serving:\n${out}\n${err}`)));
  });
  return { url, exited, child, output: () => ({ out, err }) };
}
