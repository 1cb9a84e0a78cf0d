/** Where the app writes: injectable so tests can read what a command printed. */
export interface Console {
  out(line: string): void;
  err(line: string): void;
}

/** The process's own standard output and error. */
export const processConsole: Console = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};
