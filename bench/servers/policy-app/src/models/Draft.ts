import { derives, Form, Resource, type Id, type LongText } from "fw";
import type { Team } from "fw/auth";
import type { tags } from "typia";
import { auth, type User } from "../users.js";

/**
 * The same rows under a policy that reads roles and team membership: the current team's members
 * read them, the site's admins read every team's; the author or the team's admins edit one.
 */
export interface Draft {
  id: Id<Draft>;
  team: Id<Team>;
  author: Id<User>;
  title: string & tags.MaxLength<120>;
  body: LongText;
}

export const Draft = derives<Draft>(Form, Resource, {
  table: "drafts",
  policy: auth.policy<Draft, User>({ owner: "author", team: "team" }, (can) => ({
    read: [can.member, can.role("admin")],
    create: can.member,
    update: [can.own, can.memberAs("admin")],
    destroy: [can.memberAs("admin"), can.role("admin")],
  })),
});
