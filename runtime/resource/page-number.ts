import { BadRequest } from "../http/failure.js";
import { readWholeNumber } from "../http/number-text.js";

/** A page number from the query (`?page=`, `?comments_page=`): absent is 1; anything but a whole number from 1 is a 400 naming the parameter. */
export function pageNumber(text: string | undefined, parameter = "page"): number {
  if (text === undefined) return 1;
  const page = readWholeNumber(text, 1, 999_999_999);
  if (page === undefined) {
    const named = parameter === "page" ? "The page number" : `The page number ?${parameter}=`;
    throw new BadRequest(`${named} ${JSON.stringify(text.slice(0, 40))} is not a whole number from 1 up.`);
  }
  return page;
}
