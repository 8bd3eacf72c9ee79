//! `$INCLUDE` directives of a zone file, for `audit --follow-includes`: where they are and
//! which file they name. The zone scanner keeps them as text; this finds them, in a whole
//! text ([`includes`]) or in one that goes by piece by piece ([`IncludeFinder`]), so that a
//! streamed input (a FIFO, a pipe) is read once, by the scan, with the directives found in
//! the bytes the scan reads.

/// One `$INCLUDE` directive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Include {
    /// 1-based line of the directive.
    pub line: u64,
    /// 1-based byte column of the file name.
    pub column: u64,
    /// The file name as written (quotes removed), at most [`MAX_PATH_BYTES`] bytes of it.
    pub path: Vec<u8>,
}

/// Bytes of a file name kept: one more than Linux's `PATH_MAX` (4,096, the terminating NUL
/// included), so that a longer name, cut here, still fails to open ("File name too long")
/// while a hostile line of any length costs bounded memory.
pub const MAX_PATH_BYTES: usize = 4097;

/// The `$INCLUDE` directives of a zone file, in order. A directive starts a line; its
/// first argument, quoted or not, is the file name.
pub fn includes(zone: &[u8]) -> Vec<Include> {
    let mut finder = IncludeFinder::new();
    finder.feed(zone);
    finder.finish()
}

/// Finds the `$INCLUDE` directives of a zone file given in pieces of any size, cut
/// anywhere (a line, a directive or a UTF-8 sequence may be split): the same directives as
/// [`includes`] of the whole text, in memory bounded by [`MAX_PATH_BYTES`].
#[derive(Debug, Clone)]
pub struct IncludeFinder {
    /// 1-based line of the next byte.
    line: u64,
    /// Where in its line the next byte is.
    state: State,
    /// The directives of the lines ended so far.
    found: Vec<Include>,
}

/// Where a byte stands in its line.
#[derive(Debug, Clone)]
enum State {
    /// The line so far is the first `n` bytes of `$INCLUDE` (any case).
    Directive(usize),
    /// After `$INCLUDE`, `n` spaces or tabs.
    Blanks(usize),
    /// In a file name starting at byte column `column`, in double quotes or not.
    Name {
        column: u64,
        quoted: bool,
        path: Vec<u8>,
    },
    /// The rest of a line that holds no (more) directive.
    Rest,
}

const DIRECTIVE: &[u8; 8] = b"$INCLUDE";

impl Default for IncludeFinder {
    fn default() -> Self {
        IncludeFinder::new()
    }
}

impl IncludeFinder {
    /// A finder at the start of a file.
    pub fn new() -> Self {
        IncludeFinder {
            line: 1,
            state: State::Directive(0),
            found: Vec::new(),
        }
    }

    /// Looks at the next bytes of the file.
    pub fn feed(&mut self, mut bytes: &[u8]) {
        while let Some((&byte, rest)) = bytes.split_first() {
            if let State::Rest = self.state {
                // Nothing more on this line: go to the next one at vector speed.
                match memchr::memchr(b'\n', bytes) {
                    Some(at) => {
                        bytes = &bytes[at + 1..];
                        self.end_line();
                        continue;
                    }
                    None => return,
                }
            }
            bytes = rest;
            self.step(byte);
        }
    }

    /// The directives found, once the whole file has been fed (a last line without a line
    /// end counts).
    pub fn finish(mut self) -> Vec<Include> {
        self.end_name();
        self.found
    }

    /// One byte, not in [`State::Rest`].
    fn step(&mut self, byte: u8) {
        if byte == b'\n' {
            self.end_line();
            return;
        }
        self.state = match std::mem::replace(&mut self.state, State::Rest) {
            State::Directive(n) if byte.eq_ignore_ascii_case(&DIRECTIVE[n]) => {
                if n + 1 == DIRECTIVE.len() {
                    State::Blanks(0)
                } else {
                    State::Directive(n + 1)
                }
            }
            State::Blanks(n) if matches!(byte, b' ' | b'\t') => State::Blanks(n + 1),
            // No blank after the word: `$INCLUDEX` is no directive.
            State::Blanks(0) => State::Rest,
            State::Blanks(n) => {
                let column = (DIRECTIVE.len() + n + 1) as u64;
                match byte {
                    b'"' => State::Name {
                        column,
                        quoted: true,
                        path: Vec::new(),
                    },
                    b'\r' | b';' => State::Rest,
                    _ => State::Name {
                        column,
                        quoted: false,
                        path: vec![byte],
                    },
                }
            }
            State::Name {
                column,
                quoted,
                mut path,
            } => {
                let ends = if quoted {
                    byte == b'"'
                } else {
                    matches!(byte, b' ' | b'\t' | b'\r' | b';')
                };
                if ends {
                    self.state = State::Name {
                        column,
                        quoted,
                        path,
                    };
                    self.end_name();
                    State::Rest
                } else {
                    if path.len() < MAX_PATH_BYTES {
                        path.push(byte);
                    }
                    State::Name {
                        column,
                        quoted,
                        path,
                    }
                }
            }
            State::Directive(_) | State::Rest => State::Rest,
        };
    }

    /// A line end: a file name being read ends with it (an unclosed quote too).
    fn end_line(&mut self) {
        self.end_name();
        self.line += 1;
        self.state = State::Directive(0);
    }

    /// Records the file name being read, if any and not empty; the line goes on as
    /// [`State::Rest`].
    fn end_name(&mut self) {
        if let State::Name { column, path, .. } = std::mem::replace(&mut self.state, State::Rest) {
            if !path.is_empty() {
                self.found.push(Include {
                    line: self.line,
                    column,
                    path,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ZONE: &[u8] = b"$ORIGIN example.\n$INCLUDE sub.zone xn--bcher-kva.example.\n\
                     www IN A 192.0.2.1\n$include\t\"with space.zone\" ; comment\r\n\
                     ; $INCLUDE not.zone\n $INCLUDE indented.zone\n$INCLUDEX no.zone\n";

    /// The directives of [`ZONE`], found by reading it by hand.
    fn zone_directives() -> Vec<Include> {
        vec![
            Include {
                line: 2,
                column: 10,
                path: b"sub.zone".to_vec(),
            },
            Include {
                line: 4,
                column: 10,
                path: b"with space.zone".to_vec(),
            },
        ]
    }

    #[test]
    fn finds_plain_and_quoted_file_names_with_their_place() {
        assert_eq!(includes(ZONE), zone_directives());
    }

    #[test]
    fn a_text_fed_in_pieces_cut_anywhere_gives_the_same_directives() {
        for cut in 0..=ZONE.len() {
            let mut finder = IncludeFinder::new();
            finder.feed(&ZONE[..cut]);
            finder.feed(&ZONE[cut..]);
            assert_eq!(finder.finish(), zone_directives(), "cut at {cut}");
        }
        let mut finder = IncludeFinder::default();
        for byte in ZONE.chunks(1) {
            finder.feed(byte);
        }
        assert_eq!(finder.finish(), zone_directives(), "byte by byte");
    }

    #[test]
    fn lines_without_a_file_name_and_a_last_line_without_a_line_end() {
        let zone = b"$INCLUDE\n$INCLUDE \t\n$INCLUDE ;a.zone\n$INCLUDE \"\" b.zone\n\
                     $INCLUDE\tlast.zone";
        assert_eq!(
            includes(zone),
            vec![Include {
                line: 5,
                column: 10,
                path: b"last.zone".to_vec()
            }]
        );
        let mut finder = IncludeFinder::new();
        finder.feed(b"$INCLUDE \"open.zone");
        assert_eq!(
            finder.finish(),
            vec![Include {
                line: 1,
                column: 10,
                path: b"open.zone".to_vec()
            }],
            "a quote left open at the end"
        );
    }

    #[test]
    fn a_file_name_longer_than_path_max_is_cut_after_4097_bytes() {
        let mut zone = b"$INCLUDE ".to_vec();
        zone.extend(std::iter::repeat_n(b'a', 100_000));
        zone.extend_from_slice(b" origin.\n$INCLUDE next.zone\n");
        let found = includes(&zone);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].path, vec![b'a'; 4097]);
        assert_eq!(
            found[1],
            Include {
                line: 2,
                column: 10,
                path: b"next.zone".to_vec()
            }
        );
    }
}
