//! A request's arguments, read the way OAI-PMH 2.0 (section 3.1 and 4) says: one `verb`, the
//! arguments that verb allows and no others, none repeated, a resumption token alone. Query
//! strings (GET) and form bodies (POST) are the same encoding and go through one parser.

use std::fmt;

use time::macros::format_description;

use crate::OAI_DC;
use crate::error::{ErrorCode, ProtocolError};

/// The six verbs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verb {
    Identify,
    ListMetadataFormats,
    ListSets,
    ListIdentifiers,
    ListRecords,
    GetRecord,
}

impl Verb {
    pub const ALL: [Verb; 6] = [
        Verb::Identify,
        Verb::ListMetadataFormats,
        Verb::ListSets,
        Verb::ListIdentifiers,
        Verb::ListRecords,
        Verb::GetRecord,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Verb::Identify => "Identify",
            Verb::ListMetadataFormats => "ListMetadataFormats",
            Verb::ListSets => "ListSets",
            Verb::ListIdentifiers => "ListIdentifiers",
            Verb::ListRecords => "ListRecords",
            Verb::GetRecord => "GetRecord",
        }
    }

    /// The arguments the verb allows besides `verb` itself.
    fn allowed(self) -> &'static [&'static str] {
        match self {
            Verb::Identify => &[],
            Verb::ListMetadataFormats => &["identifier"],
            Verb::ListSets => &["resumptionToken"],
            Verb::ListIdentifiers | Verb::ListRecords => {
                &["metadataPrefix", "from", "until", "set", "resumptionToken"]
            }
            Verb::GetRecord => &["identifier", "metadataPrefix"],
        }
    }
}

/// The two verbs that list records page by page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListVerb {
    /// Headers only.
    Identifiers,
    /// Headers and metadata.
    Records,
}

impl ListVerb {
    pub fn verb(self) -> Verb {
        match self {
            ListVerb::Identifiers => Verb::ListIdentifiers,
            ListVerb::Records => Verb::ListRecords,
        }
    }
}

/// A request whose arguments are all legal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    Identify,
    ListMetadataFormats { identifier: Option<String> },
    ListSets { token: Option<String> },
    List { verb: ListVerb, start: ListStart },
    GetRecord { identifier: String },
}

/// Where a list request starts: a fresh selection, or the token of an earlier page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ListStart {
    Fresh(Selection),
    Resume(String),
}

/// What a fresh list request selects (its `metadataPrefix` is checked to be `oai_dc`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    pub set: Option<String>,
    /// Records changed at or after this second.
    pub from: Option<Datestamp>,
    /// Records changed at or before this second (a day's `until` is its last second).
    pub until: Option<Datestamp>,
}

/// How fine a datestamp argument was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Granularity {
    Day,
    Seconds,
}

/// A UTC second, kept as `YYYY-MM-DDThh:mm:ss` so that comparing the text compares the times
/// (the catalog's commit times share the layout and only add milliseconds).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Datestamp(String);

const DATESTAMP_LEN: usize = "YYYY-MM-DDThh:mm:ss".len();

impl Datestamp {
    /// Reads a `from` or `until` argument: `YYYY-MM-DD` or `YYYY-MM-DDThh:mm:ssZ`. A day stands
    /// for its first second, or its last when `end` is set.
    pub fn parse(text: &str, end: bool) -> Option<(Datestamp, Granularity)> {
        let digits_at = |positions: &[usize]| {
            positions
                .iter()
                .all(|&i| text.as_bytes().get(i).is_some_and(u8::is_ascii_digit))
        };
        match text.len() {
            10 if digits_at(&[0, 1, 2, 3, 5, 6, 8, 9]) => {
                time::Date::parse(text, format_description!("[year]-[month]-[day]")).ok()?;
                let time = if end { "23:59:59" } else { "00:00:00" };
                Some((Datestamp(format!("{text}T{time}")), Granularity::Day))
            }
            20 if digits_at(&[0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]) => {
                time::PrimitiveDateTime::parse(
                    text,
                    format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]Z"),
                )
                .ok()?;
                Some((
                    Datestamp(text[..DATESTAMP_LEN].to_owned()),
                    Granularity::Seconds,
                ))
            }
            _ => None,
        }
    }

    /// The datestamp of a commit made at `at` (RFC 3339 UTC with milliseconds, as the log keeps
    /// it): its second.
    pub fn of_commit(at: &str) -> Datestamp {
        Datestamp(at.get(..DATESTAMP_LEN).unwrap_or(at).to_owned())
    }

    /// The time now, to the second.
    pub fn now() -> Datestamp {
        let now = time::OffsetDateTime::now_utc();
        let format = format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]");
        Datestamp(now.format(&format).unwrap_or_default())
    }

    /// The 19 bytes, for a token.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        self.0.as_bytes()
    }

    /// Reads back [`Datestamp::as_bytes`], checking it is one.
    pub(crate) fn from_bytes(bytes: &[u8]) -> Option<Datestamp> {
        let text = std::str::from_utf8(bytes).ok()?;
        let (stamp, _) = Datestamp::parse(&format!("{text}Z"), false)?;
        Some(stamp)
    }
}

/// Written with its `Z`, as the protocol's seconds granularity.
impl fmt::Display for Datestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}Z", self.0)
    }
}

/// A request as received: its arguments in order (for the `request` element's echo) and what
/// they ask for, or the protocol error they earn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    pub arguments: Vec<(String, String)>,
    pub verb: Option<Verb>,
    pub request: Result<Request, ProtocolError>,
}

/// Reads `application/x-www-form-urlencoded` arguments (a query string or a POST body).
pub fn parse_arguments(encoded: &[u8]) -> Parsed {
    let arguments: Vec<(String, String)> = form_urlencoded::parse(encoded)
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    let verbs: Vec<&str> = arguments
        .iter()
        .filter(|(k, _)| k == "verb")
        .map(|(_, v)| v.as_str())
        .collect();
    let verb = match verbs.as_slice() {
        [one] => Verb::ALL.into_iter().find(|v| v.as_str() == *one),
        _ => None,
    };
    let request = match (verbs.as_slice(), verb) {
        ([], _) => Err(bad_verb("the verb argument is missing".into())),
        ([_, _, ..], _) => Err(bad_verb("the verb argument is repeated".into())),
        ([one], None) => Err(bad_verb(format!(
            "{} is not an OAI-PMH verb",
            catalog_schemas::quote(one)
        ))),
        (_, Some(verb)) => request(verb, &arguments),
    };
    Parsed {
        arguments,
        verb,
        request,
    }
}

fn bad_verb(message: String) -> ProtocolError {
    ProtocolError::new(ErrorCode::BadVerb, message)
}

fn bad_argument(message: String) -> ProtocolError {
    ProtocolError::new(ErrorCode::BadArgument, message)
}

fn request(verb: Verb, arguments: &[(String, String)]) -> Result<Request, ProtocolError> {
    let mut seen: Vec<&str> = Vec::new();
    for (key, _) in arguments.iter().filter(|(k, _)| k != "verb") {
        if !verb.allowed().contains(&key.as_str()) {
            return Err(bad_argument(format!(
                "{} is not an argument of {}",
                catalog_schemas::quote(key),
                verb.as_str()
            )));
        }
        if seen.contains(&key.as_str()) {
            return Err(bad_argument(format!(
                "{} is repeated",
                catalog_schemas::quote(key)
            )));
        }
        seen.push(key);
    }
    let get = |name: &str| {
        arguments
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let token = get("resumptionToken");
    if token.is_some() && seen.len() > 1 {
        return Err(bad_argument(
            "resumptionToken is an exclusive argument: send it with the verb alone".into(),
        ));
    }
    // Values the answer echoes in its `request` element must fit the schema's types there.
    if let Some(set) = get("set")
        && !is_spec(&set, true)
    {
        return Err(bad_argument(format!(
            "set {} is not a setSpec",
            catalog_schemas::quote(&set)
        )));
    }
    if let Some(p) = get("metadataPrefix")
        && !is_spec(&p, false)
    {
        return Err(bad_argument(format!(
            "metadataPrefix {} is not one",
            catalog_schemas::quote(&p)
        )));
    }
    let prefix = |required: bool| -> Result<(), ProtocolError> {
        match get("metadataPrefix") {
            None if required => Err(bad_argument(format!(
                "{} needs metadataPrefix (oai_dc)",
                verb.as_str()
            ))),
            Some(p) if p != OAI_DC => Err(ProtocolError::new(
                ErrorCode::CannotDisseminateFormat,
                format!(
                    "records are served as oai_dc only, not {}",
                    catalog_schemas::quote(&p)
                ),
            )),
            _ => Ok(()),
        }
    };
    Ok(match verb {
        Verb::Identify => Request::Identify,
        Verb::ListMetadataFormats => Request::ListMetadataFormats {
            identifier: get("identifier"),
        },
        Verb::ListSets => Request::ListSets { token },
        Verb::GetRecord => {
            let identifier = get("identifier")
                .ok_or_else(|| bad_argument("GetRecord needs identifier".into()))?;
            prefix(true)?;
            Request::GetRecord { identifier }
        }
        Verb::ListIdentifiers | Verb::ListRecords => {
            let list = if verb == Verb::ListRecords {
                ListVerb::Records
            } else {
                ListVerb::Identifiers
            };
            if let Some(token) = token {
                return Ok(Request::List {
                    verb: list,
                    start: ListStart::Resume(token),
                });
            }
            let from = bound(get("from"), "from", false)?;
            let until = bound(get("until"), "until", true)?;
            if let (Some((_, a)), Some((_, b))) = (&from, &until)
                && a != b
            {
                return Err(bad_argument(
                    "from and until must have the same granularity".into(),
                ));
            }
            prefix(true)?;
            Request::List {
                verb: list,
                start: ListStart::Fresh(Selection {
                    set: get("set"),
                    from: from.map(|(d, _)| d),
                    until: until.map(|(d, _)| d),
                }),
            }
        }
    })
}

/// Whether `text` fits the protocol's `setSpecType` (`colons` set) or `metadataPrefixType`:
/// unreserved URI characters, and for a setSpec `:` between non-empty parts.
fn is_spec(text: &str, colons: bool) -> bool {
    let part = |p: &str| {
        !p.is_empty()
            && p.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b))
    };
    if colons {
        text.split(':').all(part)
    } else {
        part(text)
    }
}

fn bound(
    value: Option<String>,
    name: &str,
    end: bool,
) -> Result<Option<(Datestamp, Granularity)>, ProtocolError> {
    let Some(value) = value else { return Ok(None) };
    Datestamp::parse(&value, end).map(Some).ok_or_else(|| {
        bad_argument(format!(
            "{name} {} is not a UTC datestamp (YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ)",
            catalog_schemas::quote(&value)
        ))
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn code(query: &str) -> Option<ErrorCode> {
        parse_arguments(query.as_bytes())
            .request
            .err()
            .map(|e| e.code)
    }

    #[test]
    fn verbs_and_their_arguments() {
        assert_eq!(
            parse_arguments(b"verb=Identify").request,
            Ok(Request::Identify)
        );
        assert_eq!(code(""), Some(ErrorCode::BadVerb));
        assert_eq!(code("verb=Nonsense"), Some(ErrorCode::BadVerb));
        assert_eq!(
            code("verb=Identify&verb=Identify"),
            Some(ErrorCode::BadVerb)
        );
        assert_eq!(code("verb=Identify&x=1"), Some(ErrorCode::BadArgument));
        assert_eq!(
            code("verb=GetRecord&metadataPrefix=oai_dc"),
            Some(ErrorCode::BadArgument)
        );
        assert_eq!(
            code("verb=GetRecord&identifier=x&metadataPrefix=marc"),
            Some(ErrorCode::CannotDisseminateFormat)
        );
        assert_eq!(code("verb=ListRecords"), Some(ErrorCode::BadArgument));
        assert_eq!(
            code("verb=ListRecords&metadataPrefix=oai_dc&set=a%20b"),
            Some(ErrorCode::BadArgument)
        );
        assert_eq!(
            code("verb=ListRecords&metadataPrefix=oai_dc&set=a::b"),
            Some(ErrorCode::BadArgument)
        );
        assert_eq!(
            code("verb=ListRecords&metadataPrefix=oai_dc&set=work:sub"),
            None
        );
        assert_eq!(
            code("verb=ListRecords&metadataPrefix=oai%20dc"),
            Some(ErrorCode::BadArgument)
        );
        assert_eq!(
            code("verb=ListRecords&metadataPrefix=oai_dc&metadataPrefix=oai_dc"),
            Some(ErrorCode::BadArgument)
        );
        assert_eq!(
            code("verb=ListRecords&metadataPrefix=oai_dc&resumptionToken=abc"),
            Some(ErrorCode::BadArgument)
        );
        assert_eq!(
            code(
                "verb=ListIdentifiers&metadataPrefix=oai_dc&from=2026-01-01&until=2026-01-02T00:00:00Z"
            ),
            Some(ErrorCode::BadArgument)
        );
        assert_eq!(
            code("verb=ListIdentifiers&metadataPrefix=oai_dc&from=2026-13-01"),
            Some(ErrorCode::BadArgument)
        );
        let Request::List { verb, start } = parse_arguments(
            b"verb=ListRecords&metadataPrefix=oai_dc&set=work&from=2026-01-01&until=2026-01-31",
        )
        .request
        .unwrap() else {
            panic!("a list")
        };
        assert_eq!(verb, ListVerb::Records);
        assert_eq!(
            start,
            ListStart::Fresh(Selection {
                set: Some("work".into()),
                from: Some(Datestamp("2026-01-01T00:00:00".into())),
                until: Some(Datestamp("2026-01-31T23:59:59".into())),
            })
        );
        assert_eq!(
            parse_arguments(b"verb=ListRecords&resumptionToken=a%2Bb").request,
            Ok(Request::List {
                verb: ListVerb::Records,
                start: ListStart::Resume("a+b".into())
            })
        );
    }

    #[test]
    fn datestamps() {
        let (d, g) = Datestamp::parse("2026-11-21T14:07:38Z", true).unwrap();
        assert_eq!(
            (d.to_string().as_str(), g),
            ("2026-11-21T14:07:38Z", Granularity::Seconds)
        );
        assert_eq!(
            Datestamp::of_commit("2026-11-21T14:07:38.123Z"),
            d,
            "a commit's datestamp is its second"
        );
        for bad in [
            "2026-02-30",
            "2026-11-21T24:00:00Z",
            "2026-11-21T14:07:38",
            "+026-11-21",
            "2026-1-21",
            "",
        ] {
            assert!(Datestamp::parse(bad, false).is_none(), "{bad}");
        }
        let stamp = Datestamp::from_bytes(d.as_bytes()).unwrap();
        assert_eq!(stamp, d);
    }

    proptest! {
        /// Whatever arrives, the parser answers a request or a protocol error, and never
        /// accepts a request that repeats an argument.
        #[test]
        fn any_input_is_answered(input in proptest::collection::vec(any::<u8>(), 0..200)) {
            let parsed = parse_arguments(&input);
            if parsed.request.is_ok() {
                let mut keys: Vec<_> = parsed.arguments.iter().map(|(k, _)| k).collect();
                let n = keys.len();
                keys.sort();
                keys.dedup();
                prop_assert_eq!(keys.len(), n);
            }
        }

        /// Every real second reads back as itself.
        #[test]
        fn seconds_round_trip(secs in 0i64..253_402_300_799) {
            let t = time::OffsetDateTime::from_unix_timestamp(secs).unwrap();
            let text = t.format(format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]Z")).unwrap();
            let (d, g) = Datestamp::parse(&text, false).unwrap();
            prop_assert_eq!(g, Granularity::Seconds);
            prop_assert_eq!(d.to_string(), text);
        }
    }
}
