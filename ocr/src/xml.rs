//! The walk over quick-xml's events that both XML readers share.
//!
//! It turns the event stream into opens, closes and text, with every element closed exactly
//! once (an empty element `<a/>` is an open and a close), end tags matched against their start
//! tags, entities resolved into the text (the five XML ones and character references; in
//! hOCR also `&nbsp;`), the declaration, doctype, comments and processing instructions skipped,
//! and a byte position for every step and every error. In hOCR, HTML's void elements (`<meta>`,
//! `<br>`, …) may be left unclosed, as HTML writes them.

use std::borrow::Cow;

use quick_xml::Reader;
use quick_xml::XmlVersion;
use quick_xml::events::{BytesStart, Event};

use crate::{Error, Format, Position};

/// One step of the walk.
pub(crate) enum Step<'a> {
    /// An element opens; a [`Step::Close`] follows for it, even when it was written empty.
    Open(BytesStart<'a>),
    /// The innermost open element closes.
    Close,
    /// Character data (text, CDATA or a resolved entity), not yet whitespace-collapsed.
    Text(Cow<'a, str>),
    /// The end of the input, every element closed.
    Eof,
}

pub(crate) struct Walker<'a> {
    reader: Reader<&'a [u8]>,
    format: Format,
    /// Forgive HTML's unclosed void elements and resolve `&nbsp;` (hOCR).
    html: bool,
    /// The names of the open elements, back to back; `starts[i]` is where the i-th one starts.
    names: String,
    starts: Vec<usize>,
    /// The last open was an empty element (or an HTML void one): its close comes next.
    close_next: bool,
    /// Where the current step starts.
    at: u64,
}

impl<'a> Walker<'a> {
    pub(crate) fn new(input: &'a str, format: Format) -> Self {
        let mut reader = Reader::from_str(input);
        // End tags are matched here (so HTML's void elements can be forgiven in hOCR).
        reader.config_mut().check_end_names = false;
        Walker {
            reader,
            format,
            html: format == Format::Hocr,
            names: String::new(),
            starts: Vec::new(),
            close_next: false,
            at: 0,
        }
    }

    /// Where the current step starts.
    pub(crate) fn at(&self) -> Position {
        Position::Byte(self.at)
    }

    pub(crate) fn malformed(&self, at: u64, message: impl Into<String>) -> Error {
        Error::Malformed {
            format: self.format,
            at: Position::Byte(at),
            message: message.into(),
        }
    }

    pub(crate) fn next(&mut self) -> Result<Step<'a>, Error> {
        if self.close_next {
            self.close_next = false;
            return Ok(Step::Close);
        }
        loop {
            self.at = self.reader.buffer_position();
            let event = match self.reader.read_event() {
                Ok(event) => event,
                Err(error) => {
                    return Err(self.malformed(self.reader.error_position(), error.to_string()));
                }
            };
            match event {
                Event::Start(start) => {
                    if self.html && is_void(start.local_name().as_ref()) {
                        self.close_next = true;
                    } else {
                        self.starts.push(self.names.len());
                        self.names.push_str(start.name().as_ref());
                    }
                    return Ok(Step::Open(start));
                }
                Event::Empty(start) => {
                    self.close_next = true;
                    return Ok(Step::Open(start));
                }
                Event::End(end) => {
                    let name = end.name();
                    let name = name.as_ref();
                    match self.starts.last() {
                        Some(&start) if &self.names[start..] == name => {
                            self.names.truncate(start);
                            self.starts.pop();
                            return Ok(Step::Close);
                        }
                        _ if self.html && is_void(end.local_name().as_ref()) => {}
                        Some(&start) => {
                            let open = &self.names[start..];
                            return Err(self.malformed(
                                self.at,
                                format!("expected </{open}>, found </{name}>"),
                            ));
                        }
                        None => {
                            return Err(self.malformed(self.at, format!("unexpected </{name}>")));
                        }
                    }
                }
                Event::Text(text) => return Ok(Step::Text(text.into_inner())),
                Event::CData(data) => return Ok(Step::Text(data.into_inner())),
                Event::GeneralRef(reference) => {
                    return self.resolve(&reference).map(Step::Text);
                }
                Event::Eof => {
                    if let Some(&start) = self.starts.last() {
                        let open = &self.names[start..];
                        return Err(self.malformed(
                            self.at,
                            format!("unexpected end of input: <{open}> is not closed"),
                        ));
                    }
                    return Ok(Step::Eof);
                }
                Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
            }
        }
    }

    fn resolve(&self, reference: &str) -> Result<Cow<'a, str>, Error> {
        if let Some(number) = reference.strip_prefix('#') {
            let code = match number.strip_prefix('x') {
                Some(hex) => u32::from_str_radix(hex, 16).ok(),
                None => number.parse::<u32>().ok(),
            };
            return match code.and_then(char::from_u32).filter(|&c| c != '\0') {
                Some(c) => Ok(Cow::Owned(c.to_string())),
                None => {
                    Err(self.malformed(self.at, format!("bad character reference &{reference};")))
                }
            };
        }
        if let Some(text) = quick_xml::escape::resolve_predefined_entity(reference) {
            return Ok(Cow::Borrowed(text));
        }
        if self.html && reference == "nbsp" {
            return Ok(Cow::Borrowed("\u{a0}"));
        }
        Err(self.malformed(self.at, format!("unknown entity &{reference};")))
    }

    /// The values of the attributes named (by local name, so `xlink:href` is `href`), each
    /// with its entities resolved.
    pub(crate) fn attributes<'s, const N: usize>(
        &self,
        start: &'s BytesStart<'a>,
        names: [&str; N],
    ) -> Result<[Option<Cow<'s, str>>; N], Error> {
        let mut values = [const { None }; N];
        for attribute in start.attributes() {
            let attribute = attribute.map_err(|e| self.malformed(self.at, e.to_string()))?;
            let key = attribute.key.local_name();
            let Some(i) = names.iter().position(|n| *n == key.as_ref()) else {
                continue;
            };
            let value = attribute
                .normalized_value(XmlVersion::Implicit1_0)
                .map_err(|e| self.malformed(self.at, e.to_string()))?;
            values[i] = Some(value);
        }
        Ok(values)
    }
}

/// HTML's void elements, which HTML writes without an end tag (any case).
fn is_void(local: &str) -> bool {
    let mut name = [0u8; 6];
    let Some(name) = name.get_mut(..local.len()) else {
        return false;
    };
    name.copy_from_slice(local.as_bytes());
    name.make_ascii_lowercase();
    matches!(
        &*name,
        b"area"
            | b"base"
            | b"br"
            | b"col"
            | b"embed"
            | b"hr"
            | b"img"
            | b"input"
            | b"link"
            | b"meta"
            | b"param"
            | b"source"
            | b"track"
            | b"wbr"
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn void_elements() {
        for name in ["meta", "META", "br", "source", "wbr"] {
            assert!(super::is_void(name), "{name}");
        }
        for name in ["span", "div", "metas", "", "sources", "b"] {
            assert!(!super::is_void(name), "{name}");
        }
    }
}
