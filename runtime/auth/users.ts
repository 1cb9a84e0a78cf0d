import { hashPassword } from "./password.js";

/**
 * What the auth module reads of the app's user model: its key (`id: Id<User>`), its email and
 * its password hash (from `hashPassword`, never the password). The app's model may have more.
 */
export interface UserFields {
  readonly id: number;
  readonly email: string;
  readonly passwordHash: string;
}

/**
 * The users the form sign-in checks and sign-up adds to, supplied by the app. Emails are
 * matched without regard to case: implementations compare `normalEmail` forms.
 */
export interface Users<U extends UserFields = UserFields> {
  /** The user with this email (any case), or undefined. */
  byEmail(email: string): Promise<U | undefined>;
  /** A new user with a fresh key; undefined when the email (any case) is taken. */
  create(email: string, passwordHash: string): Promise<U | undefined>;
}

/** An email as compared and stored: trimmed, lower-case. */
export function normalEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * Users kept in memory for the life of the process (tests, the example, a first app). Keys are
 * 1, 2, 3, … `U` is the app's user type; fields it has beyond `UserFields` must be optional,
 * since a sign-up knows only the email and the password.
 */
export class InMemoryUsers<U extends UserFields = UserFields> implements Users<U> {
  private readonly byNormalEmail = new Map<string, U>();
  private next = 1;

  async byEmail(email: string): Promise<U | undefined> {
    const user = this.byNormalEmail.get(normalEmail(email));
    return user === undefined ? undefined : { ...user };
  }

  async create(email: string, passwordHash: string): Promise<U | undefined> {
    const normal = normalEmail(email);
    if (this.byNormalEmail.has(normal)) return undefined;
    // The cast is what the class comment asks of U: only these fields are required.
    const user = { id: this.next++, email: normal, passwordHash } as U;
    this.byNormalEmail.set(normal, user);
    return { ...user };
  }
}

/**
 * Adds a user from code (tests, a dev seed), hashing the password. Throws when the email is
 * taken, naming it.
 */
export async function seedUser<U extends UserFields>(users: Users<U>, email: string, password: string): Promise<U> {
  const user = await users.create(email, await hashPassword(password));
  if (user === undefined) throw new Error(`seedUser: a user with the email ${JSON.stringify(normalEmail(email))} exists already.`);
  return user;
}
