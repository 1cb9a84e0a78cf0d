import {
  Actions,
  Create,
  Destroy,
  Edit,
  FromPath,
  guardRoutes,
  pickerScriptRoute,
  Relations,
  resourceRoutes,
  RouteTable,
  Update,
  withCurrentUser,
  type Request,
  type FieldSpec,
  type ModelSpec,
  type OwnedDeclaration,
  type ScopedStore,
  type Store,
} from "../../runtime/index.js";

// A small app of four models pointing at each other, written by hand as the generated table
// would write it, for the pages of issue 29 (references, pickers, has-many, deletes) on every
// engine: spec/resource/relations-pages.test.ts (in memory), spec/db/relations-pages.test.ts.
//   Author ← Post (restrict; Post owned, drafts readable by their owner alone)
//   Post ← Comment.post (cascade, readableWith), Comment.seeAlso (set null, optional)
//   Post ← Review.post (restrict), unique (post, reviewer)

export interface Author {
  id: number;
  name: string;
}
export interface Post {
  id: number;
  owner?: number;
  title: string;
  author: number;
  published: boolean;
}
export interface Comment {
  id: number;
  post: number;
  body: string;
  seeAlso?: number;
}
export interface Review {
  id: number;
  post: number;
  reviewer: string;
  stars: number;
}

/** Who is signed in: the `x-user` header (a user key), standing in for a session. */
const signedIn = (request: Request): Request => withCurrentUser(request, request.headers.get("x-user"));

/** Posts belong to their owner: only they change them, and a draft (published false) is theirs alone to read. */
export const owned: OwnedDeclaration = {
  covers: Actions.only(Create, Edit, Update, Destroy),
  through: (route) => (route.case === "http" ? { ...route, handler: (request) => route.handler(signedIn(request)) } : route),
  identify: signedIn,
  carries: [],
};

const text = (name: string, label: string, unique = false): FieldSpec => ({ name, label, input: "text", optional: false, describe: "a text", maxLength: 200, ...(unique ? { unique } : {}) });
const reference = (name: string, label: string, model: string, onDelete: "restrict" | "cascade" | "set null", optional = false): FieldSpec => ({
  name,
  label,
  input: "reference",
  optional,
  describe: `a ${model.toLowerCase()}`,
  reference: { model, path: `/${model.toLowerCase()}s`, onDelete },
});

function spec<A>(name: string, fields: readonly FieldSpec[], extra: Partial<ModelSpec<A>> = {}): ModelSpec<A> {
  return {
    name,
    fqn: `models.${name}`,
    path: `/${name.toLowerCase()}s`,
    key: "id",
    fields,
    validate: (input) => ({ success: true, data: input as A }),
    decodeKey: FromPath.int,
    ...extra,
  };
}

/** The models' specs; `table` names each model's table (a database run), so errors name tables as the generated specs do. */
export function relationsSpecs(table: (name: string) => string | undefined = () => undefined) {
  const tabled = (name: string) => {
    const t = table(name);
    return t === undefined ? {} : { table: t };
  };
  return {
    author: spec<Author>("Author", [text("name", "Name", true)], tabled("authors")),
    post: spec<Post>("Post", [text("title", "Title"), reference("author", "Author", "Author", "restrict"), { name: "published", label: "Published", input: "checkbox", optional: false, describe: "yes or no" }], { owner: "owner", search: { fields: ["title"], language: "english" }, ...tabled("posts") }),
    comment: spec<Comment>("Comment", [reference("post", "Post", "Post", "cascade"), text("body", "Body"), reference("seeAlso", "See also", "Post", "set null", true)], { readableWith: "post", ...tabled("comments") }),
    review: spec<Review>("Review", [reference("post", "Post", "Post", "restrict"), text("reviewer", "Reviewer"), { name: "stars", label: "Stars", input: "number", optional: false, describe: "a number" }], {
      unique: [["post", "reviewer"]],
      ...tabled("reviews"),
    }),
  };
}

export type RelationsSpecs = ReturnType<typeof relationsSpecs>;

export interface RelationsStores {
  readonly authors: Store<Author>;
  readonly posts: ScopedStore<Post>;
  readonly comments: Store<Comment>;
  readonly reviews: Store<Review>;
}

/** The app's table as the generated one is made: one Relations, the referenced models' pick endpoints, the picker's script. */
export function relationsTable(specs: RelationsSpecs, stores: RelationsStores, posts: { readonly owned: OwnedDeclaration; readonly publicWhen?: "published" } = { owned, publicWhen: "published" }): RouteTable {
  const relations = new Relations();
  return RouteTable.of(
    ...resourceRoutes(specs.author, stores.authors, { relations, referenced: true }),
    ...guardRoutes(posts.owned, resourceRoutes(specs.post, stores.posts, { relations, ...posts, referenced: true })),
    ...resourceRoutes(specs.comment, stores.comments, { relations }),
    ...resourceRoutes(specs.review, stores.reviews, { relations, actions: Actions.except(Edit, Update) }),
    pickerScriptRoute(),
  );
}

