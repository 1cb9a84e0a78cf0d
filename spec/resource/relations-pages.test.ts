import { FromPath, InMemoryDatabase, ScopedStore } from "../../runtime/index.js";
import { relationsSpecs } from "./relations-app.js";
import { relationsPagesSuite } from "./relations-pages-suite.js";

// The pages of references on the in-memory engine: an InMemoryDatabase keeps references and
// uniques as a database does. The same suite runs on PGlite and PostgreSQL in spec/db/relations-pages.test.ts.
relationsPagesSuite("in memory", async () => {
  const specs = relationsSpecs();
  const memory = new InMemoryDatabase();
  return {
    specs,
    stores: {
      authors: memory.store(specs.author),
      posts: new ScopedStore(memory.store(specs.post), "owner", FromPath.int),
      comments: memory.store(specs.comment),
      reviews: memory.store(specs.review),
    },
  };
}, { validate: true });
