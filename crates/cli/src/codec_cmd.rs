//! `idnscope punycode` and `idnscope race`: the string codecs, one input per line.

use idnscope::codec::bootstring::{Error, Observer};
use idnscope::codec::punycode::{self, Decoder, Encoder};
use idnscope::codec::race;
use idnscope::codec::{codepoints, trace::Trace};
use idnscope::reason::Reason;

use super::batch::{self, Failure};
use super::{Direction, PunycodeArgs, RaceArgs};

/// Bytes of one input line kept per allowed code point (a `u+XXXXXX ` token is 9).
const LINE_BYTES_PER_CODE_POINT: usize = 16;

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure {
            code: Reason::from(&e).code(),
            message: e.to_string(),
        }
    }
}

impl From<race::RaceError> for Failure {
    fn from(e: race::RaceError) -> Self {
        Failure {
            code: Reason::from(&e).code(),
            message: e.to_string(),
        }
    }
}

/// Input that must be text (encoders) but is not valid UTF-8.
fn as_text(input: &[u8]) -> Result<&str, Failure> {
    std::str::from_utf8(input).map_err(|e| Failure {
        code: "bad-input",
        message: format!("not valid UTF-8 (at byte {})", e.valid_up_to()),
    })
}

/// Scratch space reused across the inputs of one run.
struct Punycoder {
    decoder: Decoder,
    encoder: Encoder,
    code_points: Vec<u32>,
    flags: Vec<bool>,
}

impl Punycoder {
    fn decode<O: Observer>(
        &mut self,
        args: &PunycodeArgs,
        input: &[u8],
        out: &mut String,
        observer: &mut O,
    ) -> Result<(), Failure> {
        let (code_points, flags) = self.decoder.decode_annotated(input, observer)?;
        if args.codepoints {
            codepoints::format(code_points, flags, out);
        } else if args.mixed_case {
            punycode::apply_case(code_points, flags, out);
        } else {
            out.extend(code_points.iter().filter_map(|&cp| char::from_u32(cp)));
        }
        Ok(())
    }

    fn encode<O: Observer>(
        &mut self,
        args: &PunycodeArgs,
        input: &[u8],
        out: &mut String,
        observer: &mut O,
    ) -> Result<(), Failure> {
        let text = as_text(input)?;
        let flags = if args.codepoints {
            codepoints::parse(text, &mut self.code_points, &mut self.flags).map_err(|e| {
                Failure {
                    code: "bad-input",
                    message: e.to_string(),
                }
            })?;
            Some(self.flags.as_slice())
        } else if args.mixed_case {
            punycode::fold_case(text, &mut self.code_points, &mut self.flags);
            Some(self.flags.as_slice())
        } else {
            self.code_points.clear();
            self.code_points.extend(text.chars().map(u32::from));
            None
        };
        self.encoder
            .encode_annotated(&self.code_points, flags, out, observer)?;
        Ok(())
    }
}

/// Runs `idnscope punycode`.
pub fn punycode(args: &PunycodeArgs) -> u8 {
    let mut coder = Punycoder {
        decoder: Decoder::new(args.max_len),
        encoder: Encoder::new(args.max_len),
        code_points: Vec::new(),
        flags: Vec::new(),
    };
    let command = match args.direction {
        Direction::Encode => "punycode encode",
        Direction::Decode => "punycode decode",
    };
    let line_cap = args.max_len.saturating_mul(LINE_BYTES_PER_CODE_POINT);
    batch::run(command, &args.strings, line_cap, |input, out, trace_out| {
        let mut trace = Trace::new();
        let result = match (args.direction, args.trace) {
            (Direction::Decode, false) => coder.decode(args, input, out, &mut ()),
            (Direction::Decode, true) => coder.decode(args, input, out, &mut trace),
            (Direction::Encode, false) => coder.encode(args, input, out, &mut ()),
            (Direction::Encode, true) => coder.encode(args, input, out, &mut trace),
        };
        trace_out.push_str(trace.as_str());
        result
    })
}

/// Runs `idnscope race`.
pub fn race(args: &RaceArgs) -> u8 {
    let command = match args.direction {
        Direction::Encode => "race encode",
        Direction::Decode => "race decode",
    };
    // Longer than any RACE input or label can be (36 octets, 4 bytes per character).
    let line_cap = 4 * race::MAX_COMPRESSED;
    batch::run(command, &args.strings, line_cap, |input, out, _| {
        match args.direction {
            Direction::Encode => race::encode(as_text(input)?, out)?,
            Direction::Decode => race::decode(input, out)?,
        }
        Ok(())
    })
}
