//! Reading the binary greymap (PGM, `P5`) `pdftoppm -gray` writes: a header of three numbers
//! and the samples.

/// A greymap: `width × height` samples, row by row, each `0..=maxval` (0 black).
#[derive(Debug)]
pub(crate) struct Pgm<'a> {
    pub width: u32,
    pub height: u32,
    pub maxval: u16,
    data: &'a [u8],
}

impl Pgm<'_> {
    /// The samples in order, each widened to `u16` (two bytes, most significant first, when
    /// `maxval` is past 255).
    pub fn samples(&self) -> impl Iterator<Item = u16> + '_ {
        let wide = self.maxval > 255;
        let step = if wide { 2 } else { 1 };
        self.data.chunks_exact(step).map(move |s| match s {
            [hi, lo] => u16::from_be_bytes([*hi, *lo]),
            [v] => u16::from(*v),
            _ => 0,
        })
    }
}

/// Reads a `P5` greymap; `Err` says what was wrong. Samples past `maxval` are kept as they are
/// (the reader of samples clamps them), and bytes after the last sample are ignored (a file may
/// hold several images; the first is read).
pub(crate) fn read(bytes: &[u8]) -> Result<Pgm<'_>, String> {
    if !bytes.starts_with(b"P5") {
        return Err("not a binary greymap (P5)".to_owned());
    }
    let mut at = 2;
    let mut field = |name: &str| -> Result<u32, String> {
        // Whitespace and `#` comments (to the end of their line) separate the fields.
        loop {
            match bytes.get(at) {
                Some(b) if b.is_ascii_whitespace() => at += 1,
                Some(b'#') => {
                    while bytes.get(at).is_some_and(|&b| b != b'\n' && b != b'\r') {
                        at += 1;
                    }
                }
                _ => break,
            }
        }
        let start = at;
        while bytes.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
        std::str::from_utf8(&bytes[start..at])
            .ok()
            .and_then(|digits| digits.parse::<u32>().ok())
            .filter(|&v| v > 0)
            .ok_or_else(|| format!("no {name} in the header"))
    };
    let width = field("width")?;
    let height = field("height")?;
    let maxval = field("maxval")?;
    let maxval = u16::try_from(maxval).map_err(|_| format!("maxval {maxval} is past 65535"))?;
    // Exactly one whitespace byte ends the header.
    if !bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
        return Err("the header does not end in whitespace".to_owned());
    }
    let data = &bytes[at + 1..];
    let need = u64::from(width) * u64::from(height) * if maxval > 255 { 2 } else { 1 };
    if (data.len() as u64) < need {
        return Err(format!(
            "{width}x{height} needs {need} bytes of samples, and {} follow",
            data.len()
        ));
    }
    Ok(Pgm {
        width,
        height,
        maxval,
        data: &data[..need as usize],
    })
}
