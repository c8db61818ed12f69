//! Splitting date text into words: Hebrew words (letters with their geresh and gershayim),
//! Latin words (lowercased) and runs of digits. Everything else — spaces, commas, periods,
//! hyphens, maqaf, slashes, brackets — only separates words.

/// One word of date text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// Hebrew letters, with `'` for a geresh and `"` for gershayim wherever they were written
    /// after a letter; niqqud and cantillation are dropped.
    Hebrew(String),
    /// Latin letters, lowercased, apostrophes dropped (`sh'vat` is `shvat`).
    Latin(String),
    /// ASCII digits; an English ordinal ending (`19th`) is dropped.
    Digits(String),
}

impl Token {
    /// The Hebrew letters alone, without marks.
    pub fn hebrew_letters(&self) -> Option<String> {
        match self {
            Token::Hebrew(s) => Some(s.chars().filter(|c| !is_mark(*c)).collect()),
            _ => None,
        }
    }

    pub fn latin(&self) -> Option<&str> {
        match self {
            Token::Latin(s) => Some(s),
            _ => None,
        }
    }
}

fn is_mark(c: char) -> bool {
    c == '\'' || c == '"'
}

fn is_hebrew_letter(c: char) -> bool {
    ('א'..='ת').contains(&c)
}

/// Niqqud and cantillation marks: read as nothing, so `כִּסְלֵו` is `כסלו`. Maqaf, paseq, sof
/// pasuq and nun hafukha in the same block are punctuation instead.
fn is_point(c: char) -> bool {
    ('\u{0591}'..='\u{05C7}').contains(&c)
        && !matches!(c, '\u{05BE}' | '\u{05C0}' | '\u{05C3}' | '\u{05C6}')
}

/// A geresh or gershayim as people type them: the Hebrew marks, ASCII quotes and the
/// typographic quotes word processors substitute. `Some('\'')` for single, `Some('"')` for
/// double.
fn quote_kind(c: char) -> Option<char> {
    match c {
        '׳' | '\'' | '‘' | '’' | '`' | '´' => Some('\''),
        '״' | '"' | '“' | '”' => Some('"'),
        _ => None,
    }
}

/// English ordinal endings that may follow a day written in digits.
const ORDINAL_ENDINGS: [&str; 4] = ["st", "nd", "rd", "th"];

/// Splits `text` into tokens.
pub fn tokenize(text: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut current: Option<Token> = None;
    // Whether the Latin word being read began right after digits, with nothing between (`19th`).
    let mut after_digits = false;
    for c in text.chars() {
        if is_point(c) || c == '\u{200C}' || c == '\u{200D}' {
            continue;
        }
        let kind = quote_kind(c);
        let next = match (&mut current, c) {
            (Some(Token::Hebrew(s)), c) if is_hebrew_letter(c) => {
                s.push(c);
                continue;
            }
            (Some(Token::Hebrew(s)), _) if kind.is_some() => {
                s.extend(kind);
                continue;
            }
            (Some(Token::Latin(_)), _) if kind == Some('\'') => continue,
            (Some(Token::Latin(s)), c) if c.is_alphabetic() && !is_hebrew_letter(c) => {
                s.extend(c.to_lowercase());
                continue;
            }
            (Some(Token::Digits(s)), c) if c.is_ascii_digit() => {
                s.push(c);
                continue;
            }
            (_, c) if is_hebrew_letter(c) => Some(Token::Hebrew(c.to_string())),
            (_, c) if c.is_ascii_digit() => Some(Token::Digits(c.to_string())),
            (_, c) if c.is_alphabetic() => Some(Token::Latin(c.to_lowercase().collect())),
            _ => None,
        };
        let glued = matches!(current, Some(Token::Digits(_)));
        finish(&mut tokens, current.take(), after_digits);
        after_digits = glued && matches!(next, Some(Token::Latin(_)));
        current = next;
    }
    finish(&mut tokens, current, after_digits);
    tokens
}

/// Ends a word: an ordinal ending glued to digits (`19th`) is dropped rather than kept.
fn finish(tokens: &mut Vec<Token>, token: Option<Token>, after_digits: bool) {
    let Some(token) = token else { return };
    if let Token::Latin(word) = &token
        && after_digits
        && ORDINAL_ENDINGS.contains(&word.as_str())
    {
        return;
    }
    tokens.push(token);
}
