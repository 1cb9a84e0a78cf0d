import { backOffice } from "fw/admin";
import { auth } from "./auth.js";
import { Entry } from "./guestbook.js";
import { Comment } from "./models/Comment.js";
import { Note } from "./models/Note.js";
import { Post } from "./models/Post.js";

/**
 * The example's back office (issue 41) at /admin, for users holding the admin role (the demo
 * account in dev; `npm run db -- grant admin ada@example.com` on a server): every post, comment,
 * note and guestbook entry, whoever wrote it (listed, filtered, shown, edited, deleted), the users
 * (roles, locks, sign out everywhere) and the audit log of every change made there. Anyone else
 * gets a 404 from every page of it.
 */
export const admin = backOffice(auth, { models: [Post, Comment, Note, Entry] });
