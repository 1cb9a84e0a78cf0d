import { InMemoryStore } from "../../runtime/index.js";
import { ROW_MODEL, storeConformance } from "./store-conformance.js";

storeConformance("InMemoryStore", () => new InMemoryStore("id", ROW_MODEL));
