//! The size of a JPEG, read from its frame header.

/// `(width, height)` of a JPEG, from its first start-of-frame marker; `None` when `bytes` does
/// not begin with a JPEG's start-of-image marker or has no readable frame header before its
/// image data.
pub(crate) fn size(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.get(..2)? != [0xFF, 0xD8] {
        return None;
    }
    let mut at = 2;
    loop {
        // Markers may be preceded by any number of 0xFF fill bytes.
        if *bytes.get(at)? != 0xFF {
            return None;
        }
        while *bytes.get(at)? == 0xFF {
            at += 1;
        }
        let marker = *bytes.get(at)?;
        at += 1;
        match marker {
            // Markers without a length: TEM and the restart markers.
            0x01 | 0xD0..=0xD7 => continue,
            // End of image or start of scan before any frame header.
            0xD9 | 0xDA => return None,
            _ => {}
        }
        let length = usize::from(u16::from_be_bytes([*bytes.get(at)?, *bytes.get(at + 1)?]));
        // Start of frame: every 0xC0-0xCF but DHT (C4), JPG (C8) and DAC (CC).
        if (0xC0..=0xCF).contains(&marker) && ![0xC4, 0xC8, 0xCC].contains(&marker) {
            let field = |i: usize| Some(u16::from_be_bytes([*bytes.get(i)?, *bytes.get(i + 1)?]));
            let (height, width) = (field(at + 3)?, field(at + 5)?);
            return (width > 0 && height > 0).then_some((u32::from(width), u32::from(height)));
        }
        if length < 2 {
            return None;
        }
        at += length;
    }
}

/// Whether `bytes` starts with a JPEG's start-of-image marker and ends with its end-of-image
/// marker.
#[cfg(test)]
pub(crate) fn whole(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0xFF, 0xD8]) && bytes.ends_with(&[0xFF, 0xD9])
}
