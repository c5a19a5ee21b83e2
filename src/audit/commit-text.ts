import { laterStageReferencesIn, testRemarksIn } from "../mine/writer-check.js";

/**
 * What marks a request text as a commit message rather than a user's request: trailers, e-mail
 * addresses, remarks about tests, references to later stages, merge lines and pull-request numbers,
 * and "fix typo in <identifier>" (a rename the text dictates). Pure; one entry per kind of mark.
 */
const trailer =
  /^(?:Co-authored-by|Signed-off-by|Reviewed-by|Acked-by|Tested-by|Reported-by|Suggested-by|Helped-by|Change-Id|git-svn-id|Cc)\s*:.*$/gim;
const email = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
const merge = /^Merge (?:pull request #\d+|branch '[^']*'|remote-tracking branch).*$/gim;
const pullRequest = /\(#\d+\)|\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?)\s+#\d+/gi;
const typoIn = /\b(?:fix(?:es|ed)?|correct(?:s|ed)?)\s+(?:a\s+)?typos?\s+in\s+`?([A-Za-z_][A-Za-z0-9_.]*(?:\(\))?)`?/gi;
// A commit's subject or sentence that starts with it ("Add tests", "fix test"), not a variable named test.
const commitTestRemark =
  /(?:^|[.;!?]\s+)(?:add(?:s|ed)?|update[sd]?|fix(?:es|ed)?|more|new|improve[sd]?)\s+(?:unit\s+|regression\s+)?tests?\b/gim;

const looksLikeCode = (name: string): boolean => /_|[a-z][A-Z]|\(\)|\./.test(name);

export interface CommitMark {
  what: string;
  evidence: string[];
}

const all = (text: string, re: RegExp): string[] => [...new Set([...text.matchAll(re)].map((m) => m[0].replace(/^[.;!?]\s+/, "").trim()))];

/** Every commit mark in the text (empty when it reads as a request). */
export function commitMarks(text: string): CommitMark[] {
  const marks: CommitMark[] = [
    { what: "trailer lines", evidence: all(text, trailer) },
    { what: "e-mail addresses", evidence: all(text, email) },
    { what: "merge lines or pull-request numbers", evidence: [...all(text, merge), ...all(text, pullRequest)] },
    {
      what: "a typo fix in an identifier (a rename the text dictates)",
      evidence: [...text.matchAll(typoIn)].filter((m) => looksLikeCode(m[1]!)).map((m) => m[0]),
    },
    { what: "remarks about tests", evidence: [...new Set([...all(text, commitTestRemark), ...testRemarksIn(text)])] },
    { what: "references to later stages", evidence: laterStageReferencesIn(text) },
  ];
  return marks.filter((m) => m.evidence.length > 0);
}
