import { InMemoryStore } from "../../runtime/index.js";
import { storeConformance } from "./store-conformance.js";

storeConformance("InMemoryStore", () => new InMemoryStore("id"));
