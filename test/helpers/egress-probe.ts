/**
 * The attack, from inside the agent's sandbox (a scripted `command` agent, python's own urllib and
 * sockets): every probe writes one line to egress.txt in the workspace, so the artifact shows it ran.
 * Arguments: MODEL_ORIGIN CODE_HOST_PORT REDIS_PORT REMOTE_MODEL_ORIGIN|none.
 */
export const egressProbe = String.raw`
import os, socket, sys, urllib.request
out = open(os.path.join(os.environ.get("SWITCH_SWE_WORKSPACE", os.getcwd()), "egress.txt"), "w")
def line(name, what):
    out.write(f"{name}: {what}\n"); out.flush()
def get(name, url, proxy=None):
    try:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler(proxy) if proxy is not None else urllib.request.ProxyHandler())
        r = opener.open(url, timeout=5)
        line(name, f"{r.status} {r.read().decode()[:40]}")
    except Exception as e:
        line(name, f"refused {type(e).__name__}")
def tcp(name, port):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5); s.sendall(b"PING\r\n"); line(name, "open " + s.recv(20).decode().strip())
    except Exception as e:
        line(name, f"refused {type(e).__name__}")
line("ran", "yes")
model, code, redis, remote = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
get("model", model + "/v1/models")
get("code-host", f"http://127.0.0.1:{code}/")
tcp("redis", redis)
try:
    socket.getaddrinfo("example.com", 443); line("dns", "resolved")
except Exception as e:
    line("dns", f"failed {type(e).__name__}")
if remote == "none":
    sys.exit(0)
# A model endpoint off loopback goes through the allow-list proxy (HTTP_PROXY); the proxy refuses anything else.
get("remote-model", remote + "/")
get("via-proxy-code-host", f"http://127.0.0.2:{code}/", proxy={"http": os.environ.get("HTTP_PROXY", "")})
try:
    s = socket.create_connection(("127.0.0.1", int(os.environ["HTTP_PROXY"].rsplit(":", 1)[1])), timeout=5)
    s.sendall(f"CONNECT 127.0.0.1:{redis} HTTP/1.1\r\nHost: x\r\n\r\n".encode()); line("proxy-connect-redis", s.recv(40).decode().split("\r\n")[0])
except Exception as e:
    line("proxy-connect-redis", f"refused {type(e).__name__}")
line("proxy-env", os.environ.get("HTTPS_PROXY", "unset"))
`;

/** The lines of egress.txt as an artifact patch adds them: probe name → what happened. */
export function probeLines(patch: string): Record<string, string> {
  return Object.fromEntries(
    patch
      .split("\n")
      .filter((l) => l.startsWith("+") && !l.startsWith("+++") && l.includes(": "))
      .map((l) => {
        const i = l.indexOf(": ");
        return [l.slice(1, i), l.slice(i + 2)];
      }),
  );
}
