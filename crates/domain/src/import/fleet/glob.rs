//! Globs over paths relative to the scanned directory, `/`-separated: `*`
//! (any characters but `/`), `?` (one character but `/`), `**` (anything,
//! `/` included; `**/` also matches no directory at all) and `[abc]` /
//! `[a-z]` / `[!abc]` (one character of the class). A glob without `/`
//! matches the file's name at any depth, as in `.gitignore`. Matching is a
//! table over the glob and the path, one row per token and one column per
//! character, computed row by row in two reused rows and stopped as soon as
//! a row holds no match: at most the glob's length times the path's, whatever
//! the glob (no backtracking), so a scan's matching is linear in its files
//! times its globs, both of which are bounded (the walk's entries, the
//! scan's caps).

/// Longest glob accepted, in characters.
pub const MAX_GLOB_CHARS: usize = 256;

/// A parsed glob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob {
    text: String,
    /// Eight bytes a token: a 256-character glob takes 2 KiB, and a scan
    /// holds up to its caps' worth of globs.
    tokens: Box<[Token]>,
    /// The ranges of the classes, which each name by their place here.
    ranges: Box<[(char, char)]>,
    /// Matched against the file's name only (the glob has no `/`).
    name_only: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Char(char),
    One,
    Star,
    /// `**`: anything, `/` included.
    Any,
    /// `**/`: nothing, or anything that ends with `/`.
    Dirs,
    /// `[...]`: the ranges at `start..end` of the glob's `ranges`.
    Class {
        negated: bool,
        start: u16,
        end: u16,
    },
}

impl Glob {
    /// Parses `text`; the error says what is wrong with it.
    pub fn parse(text: &str) -> Result<Self, String> {
        if text.trim().is_empty() {
            return Err("A glob cannot be empty.".to_owned());
        }
        if text.chars().count() > MAX_GLOB_CHARS {
            return Err(format!(
                "A glob is at most {MAX_GLOB_CHARS} characters long."
            ));
        }
        if text.starts_with('/') {
            return Err(format!(
                "{text:?} starts with `/`: globs match paths relative to `directory`."
            ));
        }
        let chars: Vec<char> = text.chars().collect();
        let mut tokens = Vec::with_capacity(chars.len());
        let mut ranges = Vec::new();
        let mut at = 0;
        while at < chars.len() {
            match chars[at] {
                '*' if chars.get(at + 1) == Some(&'*') => {
                    if chars.get(at + 2) == Some(&'/') {
                        tokens.push(Token::Dirs);
                        at += 3;
                    } else {
                        tokens.push(Token::Any);
                        at += 2;
                    }
                    continue;
                }
                '*' => tokens.push(Token::Star),
                '?' => tokens.push(Token::One),
                '[' => {
                    let close = chars[at + 1..]
                        .iter()
                        .skip(1)
                        .position(|c| *c == ']')
                        .map(|p| at + 2 + p)
                        .ok_or_else(|| format!("{text:?} has a `[` without its `]`."))?;
                    let mut inner = &chars[at + 1..close];
                    let negated = matches!(inner.first(), Some('!' | '^'));
                    if negated {
                        inner = &inner[1..];
                    }
                    // At most MAX_GLOB_CHARS ranges in all: they fit a u16.
                    let start = ranges.len() as u16;
                    let mut i = 0;
                    while i < inner.len() {
                        if inner.get(i + 1) == Some(&'-') && i + 2 < inner.len() {
                            ranges.push((inner[i], inner[i + 2]));
                            i += 3;
                        } else {
                            ranges.push((inner[i], inner[i]));
                            i += 1;
                        }
                    }
                    let end = ranges.len() as u16;
                    tokens.push(Token::Class {
                        negated,
                        start,
                        end,
                    });
                    at = close + 1;
                    continue;
                }
                c => tokens.push(Token::Char(c)),
            }
            at += 1;
        }
        Ok(Self {
            text: text.to_owned(),
            name_only: !text.contains('/'),
            tokens: tokens.into_boxed_slice(),
            ranges: ranges.into_boxed_slice(),
        })
    }

    /// The glob as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the glob matches `path` (relative, `/`-separated).
    pub fn matches(&self, path: &str) -> bool {
        self.matches_subject(&Subject::new(path))
    }

    /// Whether the glob matches `subject`, a path read once for all the
    /// globs it is matched against.
    pub(crate) fn matches_subject(&self, subject: &Subject) -> bool {
        let text = if self.name_only {
            &subject.chars[subject.name..]
        } else {
            &subject.chars[..]
        };
        matches(self, text)
    }
}

/// A path as matching reads it: its characters, and where its name starts.
pub(crate) struct Subject {
    chars: Vec<char>,
    name: usize,
}

impl Subject {
    /// `path` (relative, `/`-separated).
    pub(crate) fn new(path: &str) -> Self {
        let chars: Vec<char> = path.chars().collect();
        let name = chars.iter().rposition(|c| *c == '/').map_or(0, |i| i + 1);
        Self { chars, name }
    }
}

/// Rows of the table computed between two looks at whether the last row
/// holds a match and at the cancellation flag.
const ROWS_PER_CHECK: usize = 8;

/// Whether `tokens` match all of `text`: `reach[j]` tells whether the
/// tokens so far match `text[..j]`, one row per token, the next computed
/// into `next`. A row without a match ends it (no later token can match
/// again; looked at every [`ROWS_PER_CHECK`] rows). A cancelled computation's match answers false at once.
fn matches(glob: &Glob, text: &[char]) -> bool {
    let mut reach = vec![false; text.len() + 1];
    let mut next = vec![false; text.len() + 1];
    reach[0] = true;
    for (row, token) in glob.tokens.iter().enumerate() {
        if row % ROWS_PER_CHECK == 0 && (!reach.contains(&true) || clusterproxy_cancel::requested())
        {
            return false;
        }
        match token {
            Token::Star | Token::Any => {
                let crosses = matches!(token, Token::Any);
                next[0] = reach[0];
                for j in 1..=text.len() {
                    next[j] = reach[j] || (next[j - 1] && (crosses || text[j - 1] != '/'));
                }
            }
            Token::Dirs => {
                // Nothing, or any text ending with `/`.
                let mut open = false;
                for j in 0..=text.len() {
                    open |= reach[j];
                    next[j] = reach[j] || (j > 0 && open && text[j - 1] == '/');
                }
            }
            _ => {
                next[0] = false;
                for j in 1..=text.len() {
                    next[j] = reach[j - 1] && single(token, &glob.ranges, text[j - 1]);
                }
            }
        }
        std::mem::swap(&mut reach, &mut next);
    }
    reach[text.len()]
}

/// Whether a one-character token matches `c` (a class's ranges are those
/// of `ranges` it names).
fn single(token: &Token, ranges: &[(char, char)], c: char) -> bool {
    match token {
        Token::Char(want) => *want == c,
        Token::One => c != '/',
        Token::Class {
            negated,
            start,
            end,
        } => {
            let ranges = &ranges[usize::from(*start)..usize::from(*end)];
            c != '/' && ranges.iter().any(|(lo, hi)| (*lo..=*hi).contains(&c)) != *negated
        }
        Token::Star | Token::Any | Token::Dirs => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is(glob: &str, path: &str) -> bool {
        Glob::parse(glob).unwrap().matches(path)
    }

    /// A token takes eight bytes, so the globs a scan's caps admit take
    /// about 2 KiB each (they took 8 KiB).
    #[test]
    fn a_token_takes_eight_bytes() {
        assert_eq!(std::mem::size_of::<Token>(), 8);
    }

    #[test]
    fn stars_question_marks_classes_and_names() {
        assert!(is("*.yaml", "a/b/c.yaml"));
        assert!(!is("*.yaml", "a/b/c.yml"));
        assert!(is("clusters/*.yaml", "clusters/x.yaml"));
        assert!(!is("clusters/*.yaml", "clusters/a/x.yaml"));
        assert!(is("clusters/**/*.yaml", "clusters/x.yaml"));
        assert!(is("clusters/**/*.yaml", "clusters/a/b/x.yaml"));
        assert!(is("**/nodes/*.conf", "nodes/a.conf"));
        assert!(is("**/nodes/*.conf", "x/y/nodes/a.conf"));
        assert!(is("secrets/**", "secrets/a/b"));
        assert!(!is("secrets/**", "other/a"));
        assert!(is("rke2-?", "x/rke2-1"));
        assert!(is("node-[0-9].env", "node-7.env"));
        assert!(!is("node-[!0-9].env", "node-7.env"));
        assert!(is("node-[!0-9].env", "node-x.env"));
        assert!(!is("a*b", "a/b"));
    }

    #[test]
    fn bad_globs_are_refused_and_matching_is_bounded() {
        for (glob, needle) in [
            ("", "empty"),
            ("/abs/*", "relative"),
            ("a[bc", "`]`"),
            (&"a".repeat(MAX_GLOB_CHARS + 1), "at most"),
        ] {
            assert!(Glob::parse(glob).unwrap_err().contains(needle), "{glob}");
        }
        // A cancelled computation's match answers at once, here no match.
        let long = Glob::parse(&"*a".repeat(120)).unwrap();
        let many = "a".repeat(4000);
        assert!(long.matches(&many));
        let flag = clusterproxy_cancel::Flag::new();
        flag.cancel();
        assert!(!clusterproxy_cancel::scope(&flag, || long.matches(&many)));
        // Backtracking matchers take exponential time here; a table does not.
        let glob = Glob::parse(&"*a".repeat(100)).unwrap();
        let started = std::time::Instant::now();
        assert!(!glob.matches(&format!("{}b", "a".repeat(4000))));
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }
}
