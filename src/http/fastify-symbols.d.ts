// Typing of the one Fastify internal module read by src/http/route-config.ts (the package ships no types for it).
declare module 'fastify/lib/symbols.js' {
  const symbols: { readonly kRouteContext?: symbol } & Record<string, symbol>;
  export default symbols;
}
