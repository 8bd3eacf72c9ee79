//! The `names` format: one domain name per line. Empty lines and lines starting with `#`
//! pass through; spaces and tabs around a name are kept as they are.

use crate::pipeline::{Chunk, ChunkOutput, Scanner};
use crate::rewrite::NameRewriter;

/// The UTF-8 byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Scans name lists.
#[derive(Debug, Clone, Copy, Default)]
pub struct NamesScanner;

impl Scanner for NamesScanner {
    fn scan(&self, chunk: Chunk<'_>, rewriter: &mut NameRewriter, out: &mut ChunkOutput) {
        let data = chunk.data;
        let mut line_start = 0;
        let mut line_no = 0u64;
        while line_start < data.len() {
            let (line_end, next) = match memchr::memchr(b'\n', &data[line_start..]) {
                Some(at) => (line_start + at, line_start + at + 1),
                None => (data.len(), data.len()),
            };
            // A piece of a line cut for length is never a name: it passes through.
            let cut = (line_start == 0 && chunk.starts_mid_line)
                || (line_end == data.len() && chunk.ends_mid_line);
            let mut content = &data[line_start..line_end];
            if content.last() == Some(&b'\r') {
                content = &content[..content.len() - 1];
            }
            // A byte order mark (some editors write one) belongs to no name.
            let lead = if content.starts_with(BOM) {
                BOM.len()
            } else {
                0
            };
            let body_start = lead
                + content[lead..]
                    .iter()
                    .position(|b| !matches!(b, b' ' | b'\t'))
                    .unwrap_or(content.len() - lead);
            // Searched after body_start only: on a line of a BOM and blanks, the last
            // non-blank byte is inside the BOM, before body_start.
            let body_end = body_start
                + content[body_start..]
                    .iter()
                    .rposition(|b| !matches!(b, b' ' | b'\t'))
                    .map_or(0, |at| at + 1);
            let name = &content[body_start..body_end];
            if !(line_start == 0 && chunk.starts_mid_line) {
                out.stats.records += 1;
            }
            // Empty lines and comments pass through too.
            if cut || name.is_empty() || name[0] == b'#' {
                out.keep(line_start..next);
            } else {
                out.stats.names += 1;
                if rewriter.needs_work(name) {
                    let name_at = line_start + body_start;
                    let name_end = name_at + name.len();
                    out.keep(line_start..name_at);
                    out.rewrite_name(
                        rewriter,
                        data,
                        name_at..name_end,
                        line_no,
                        body_start as u64 + 1,
                    );
                    out.keep(name_end..next);
                } else {
                    out.keep(line_start..next);
                }
            }
            if next > line_end {
                line_no += 1;
            }
            line_start = next;
        }
        out.newlines = line_no;
    }
}
