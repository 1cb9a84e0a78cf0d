export async function resolve(specifier, context, next) {
  if (specifier === "rolldown" || specifier.startsWith("rolldown/")) {
    const error = new Error(`Cannot find package '${specifier}' imported from ${context.parentURL}`);
    error.code = "ERR_MODULE_NOT_FOUND";
    throw error;
  }
  return next(specifier, context);
}
