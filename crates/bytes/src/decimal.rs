//! Numbers appended to byte buffers in decimal, digit by digit: the generators' records and
//! a capture's log lines write millions of them, which the formatting machinery
//! (`write!`) makes several times dearer.

/// Appends `n` in decimal.
pub fn push_u64(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// Appends the `width` last decimal digits of `n`, zero-padded.
pub fn push_padded(out: &mut Vec<u8>, mut n: u64, width: usize) {
    let start = out.len();
    out.resize(start + width, b'0');
    for slot in out[start..].iter_mut().rev() {
        *slot = b'0' + (n % 10) as u8;
        n /= 10;
    }
}
