import { delimiter } from "node:path";

const fallbackPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** Where a set-up (pip install) finds packages, and how it reaches them; tests never see them. */
const setupPassThrough = [
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "PIP_INDEX_URL",
  "PIP_EXTRA_INDEX_URL",
  "PIP_FIND_LINKS",
  "PIP_NO_INDEX",
  "PIP_TRUSTED_HOST",
  "PIP_DEFAULT_TIMEOUT",
  "PIP_CERT",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "REQUESTS_CA_BUNDLE",
];

export interface EnvParts {
  /** A private, empty home directory (nothing of the caller's dotfiles). */
  home: string;
  /** A private temporary directory. */
  tmp: string;
  /** Directories put in front of PATH (the cached environment's venv/bin). */
  pathPrefix?: readonly string[];
  /** Variables of the cached environment (SWITCH_SWE_ENV, VIRTUAL_ENV). */
  vars?: Readonly<Record<string, string>>;
}

/**
 * The environment the test command sees: the caller's PATH and nothing else of the caller's
 * (no PYTEST_ADDOPTS, PYTHONPATH, VIRTUAL_ENV, credentials), a private HOME and TMPDIR, a UTF-8
 * locale, no bytecode files, a fixed hash seed (set and dict order identical on every run) and
 * no user site-packages.
 */
export function testEnv(parts: EnvParts): NodeJS.ProcessEnv {
  const path = [...(parts.pathPrefix ?? []), process.env.PATH ?? fallbackPath].join(delimiter);
  return {
    PATH: path,
    HOME: parts.home,
    TMPDIR: parts.tmp,
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
    PYTHONDONTWRITEBYTECODE: "1",
    PYTHONHASHSEED: "0",
    PYTHONNOUSERSITE: "1",
    PYTHONUNBUFFERED: "1",
    PIP_DISABLE_PIP_VERSION_CHECK: "1",
    PIP_NO_INPUT: "1",
    ...parts.vars,
  };
}

/** The set-up environment: the test environment plus the network settings pip may need. */
export function setupEnv(parts: EnvParts): NodeJS.ProcessEnv {
  const env = testEnv(parts);
  for (const name of setupPassThrough) {
    const v = process.env[name];
    if (v !== undefined) env[name] = v;
  }
  return env;
}
