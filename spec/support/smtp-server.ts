import { SMTPServer } from "smtp-server";

/** One message a test SMTP server took: its envelope (MAIL FROM, RCPT TO) as the server read it, and the raw message. */
export interface Received {
  readonly from: string;
  readonly to: readonly string[];
  readonly raw: string;
  readonly user: string | undefined;
}

/** A real SMTP server on a free loopback port (the smtp-server package): what it received, and what it refused. */
export interface TestSmtpServer {
  readonly port: number;
  readonly received: Received[];
  /** `smtp://127.0.0.1:<port>`, signed in as the server expects. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Starts a real SMTP server: it signs in user "shop" with password "s3cret pass" (or none), and
 * refuses the recipient `refuse` with 550.
 */
export async function smtpServer(options: { readonly refuse?: string } = {}): Promise<TestSmtpServer> {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onAuth(auth, _session, done) {
      if (auth.username === "shop" && auth.password === "s3cret pass") done(null, { user: auth.username });
      else done(new Error("Invalid username or password"));
    },
    onRcptTo(address, _session, done) {
      if (address.address === options.refuse) done(Object.assign(new Error("550 No such user here"), { responseCode: 550 }));
      else done();
    },
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        received.push({
          from: session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((to) => to.address),
          raw: Buffer.concat(chunks).toString("utf8"),
          user: session.user as string | undefined,
        });
        done();
      });
    },
  });
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  const port = (server.server.address() as { port: number }).port;
  return { port, received, url: `smtp://127.0.0.1:${port}`, close: () => new Promise<void>((done) => server.close(() => done())) };
}
