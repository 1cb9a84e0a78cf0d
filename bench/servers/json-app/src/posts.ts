// The 50 posts `GET /api/posts` answers, the same module for every side of the bench's json
// part: fw's handlers import it, and the peers (bench/servers/json-peers.mjs) import its built
// JavaScript (bench/.work/json-app/dist/posts.js), so every side sends the same data.

/** A post's author, as an API would nest it. */
export interface Author {
  id: number;
  name: string;
}

/** A post as the API answers it: numbers, text that needs escaping, a nested object, a list, a nullable date. */
export interface Post {
  id: number;
  title: string;
  slug: string;
  body: string;
  author: Author;
  tags: string[];
  published: boolean;
  views: number;
  createdAt: string;
  updatedAt: string | null;
}

const WORDS = ["fast", "typed", "routes", "compiler", "answers", "JSON", "schema", "client", "build", "checks"];

function post(i: number): Post {
  const word = WORDS[i % WORDS.length] ?? "post";
  return {
    id: i,
    title: `Post #${i}: why "${word}" matters <a lot>`,
    slug: `post-${i}-${word.toLowerCase()}`,
    body: `Post ${i} says something about ${word}. It has a few sentences, "quotes", a backslash \\ and a line break\nso that writing it as JSON escapes something. `.repeat(2),
    author: { id: 1 + (i % 7), name: `Author ${1 + (i % 7)}` },
    tags: WORDS.slice(i % 5, (i % 5) + 3),
    published: i % 4 !== 0,
    views: i * 37,
    createdAt: new Date(Date.UTC(2026, 0, 1 + i, 12, 0, 0)).toISOString(),
    updatedAt: i % 3 === 0 ? new Date(Date.UTC(2026, 1, 1 + i, 8, 30, 0)).toISOString() : null,
  };
}

export const POSTS: readonly Post[] = Array.from({ length: 50 }, (_, i) => post(i + 1));
