//! `$INCLUDE` directives of a zone file, for `audit --follow-includes`: where they are and
//! which file they name. The zone scanner keeps them as text; this finds them.

/// One `$INCLUDE` directive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Include {
    /// 1-based line of the directive.
    pub line: u64,
    /// 1-based byte column of the file name.
    pub column: u64,
    /// The file name as written (quotes removed).
    pub path: Vec<u8>,
}

/// The `$INCLUDE` directives of a zone file, in order. A directive starts a line; its
/// first argument, quoted or not, is the file name.
pub fn includes(zone: &[u8]) -> Vec<Include> {
    let mut found = Vec::new();
    for (index, text) in zone.split(|&b| b == b'\n').enumerate() {
        let line = index as u64 + 1;
        let Some(rest) = text
            .get(..8)
            .filter(|head| head.eq_ignore_ascii_case(b"$INCLUDE"))
            .map(|_| &text[8..])
        else {
            continue;
        };
        let skip = rest
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
        if skip == 0 {
            continue;
        }
        let arg = &rest[skip..];
        let column = (8 + skip + 1) as u64;
        let path = match arg.first() {
            Some(b'"') => {
                let end = memchr::memchr(b'"', &arg[1..]).map_or(arg.len(), |at| at + 1);
                arg[1..end].to_vec()
            }
            _ => arg
                .iter()
                .take_while(|b| !matches!(b, b' ' | b'\t' | b'\r' | b';'))
                .copied()
                .collect(),
        };
        if !path.is_empty() {
            found.push(Include { line, column, path });
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_plain_and_quoted_file_names_with_their_place() {
        let zone = b"$ORIGIN example.\n$INCLUDE sub.zone xn--bcher-kva.example.\n\
                     www IN A 192.0.2.1\n$include\t\"with space.zone\" ; comment\r\n\
                     ; $INCLUDE not.zone\n $INCLUDE indented.zone\n$INCLUDEX no.zone\n";
        assert_eq!(
            includes(zone),
            vec![
                Include {
                    line: 2,
                    column: 10,
                    path: b"sub.zone".to_vec()
                },
                Include {
                    line: 4,
                    column: 10,
                    path: b"with space.zone".to_vec()
                },
            ]
        );
    }
}
