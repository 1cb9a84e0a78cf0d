export async function load(url, context, next) {
  process.stderr.write(`loaded ${url}\n`);
  return next(url, context);
}
