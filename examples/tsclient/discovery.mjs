// OAuth discovery through the official TypeScript MCP client: it connects
// to an MCP endpoint that answers 401, with an auth provider, and follows
// the WWW-Authenticate challenge (RFC 9728) to the protected-resource
// metadata and the authorization server, up to the point where a user
// would sign in. It prints one JSON line per attempt: the error the
// connect ended with and the authorization URL the client would open.
// The Go tests of gosdk and mcpgo run it against their HTTP handlers and
// check which URLs it asked.
//
// Usage: node discovery.mjs MCP_URL
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const url = process.argv[2];
if (!url) {
  console.error("usage: node discovery.mjs MCP_URL");
  process.exit(2);
}

// provider is an OAuth client that is registered already (so no dynamic
// registration), holds the token given ("" for none), and records where
// it would send the user to sign in.
function provider(token) {
  let verifier = "";
  return {
    authorizationUrl: "",
    get redirectUrl() { return "http://127.0.0.1:1/callback"; },
    get clientMetadata() {
      return { client_name: "discovery", redirect_uris: ["http://127.0.0.1:1/callback"] };
    },
    clientInformation() { return { client_id: "discovery-client" }; },
    tokens() { return token ? { access_token: token, token_type: "Bearer" } : undefined; },
    saveTokens() {},
    redirectToAuthorization(u) { this.authorizationUrl = u.toString(); },
    saveCodeVerifier(v) { verifier = v; },
    codeVerifier() { return verifier; },
  };
}

for (const token of ["", "wrong"]) {
  const p = provider(token);
  const client = new Client({ name: "discovery", version: "1.0.0" });
  let error = "";
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: p }));
  } catch (e) {
    error = e.name + ": " + e.message;
  }
  await client.close().catch(() => {});
  console.log(JSON.stringify({ token, error, authorizationUrl: p.authorizationUrl }));
}
