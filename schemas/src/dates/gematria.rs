//! Hebrew numbers in letters (gematria): reading a word such as `ט״ו`, `תשמ״ט` or `ה׳תשמ״ט`
//! into its value, and writing a value back with geresh and gershayim.

/// The mark written after a single letter (`א׳`).
pub const GERESH: char = '׳';
/// The mark written before the last of several letters (`ט״ו`).
pub const GERSHAYIM: char = '״';

/// A number read from letters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Letters {
    /// The value below the thousands: `749` in `ה׳תשמ״ט`.
    pub value: u32,
    /// The thousands digit when the word names one (`ה` in `ה׳תשמ״ט` or `התשמ"ט`).
    pub thousands: Option<u32>,
    /// A single letter, the shape a thousands digit written apart takes (`ה׳ תשמ״ט`).
    pub single: bool,
}

/// The value of one Hebrew letter; final forms count as their ordinary letters.
pub fn letter_value(c: char) -> Option<u32> {
    Some(match c {
        'א' => 1,
        'ב' => 2,
        'ג' => 3,
        'ד' => 4,
        'ה' => 5,
        'ו' => 6,
        'ז' => 7,
        'ח' => 8,
        'ט' => 9,
        'י' => 10,
        'כ' | 'ך' => 20,
        'ל' => 30,
        'מ' | 'ם' => 40,
        'נ' | 'ן' => 50,
        'ס' => 60,
        'ע' => 70,
        'פ' | 'ף' => 80,
        'צ' | 'ץ' => 90,
        'ק' => 100,
        'ר' => 200,
        'ש' => 300,
        'ת' => 400,
        _ => return None,
    })
}

/// Reads a word of letters and marks (`'` for geresh, `"` for gershayim, as the tokenizer
/// leaves them). Letters go from larger to smaller values; a leading unit letter followed by
/// a geresh, or directly by a hundreds letter, is the thousands digit. `None` when the word is
/// not a number written this way.
pub fn read(word: &str) -> Option<Letters> {
    let mut values = Vec::new();
    // Index (in `values`) of the letter a geresh directly follows.
    let mut geresh_after = None;
    for c in word.chars() {
        match c {
            '\'' => geresh_after = geresh_after.or(values.len().checked_sub(1)),
            '"' => {}
            c => values.push(letter_value(c)?),
        }
    }
    let first = *values.first()?;
    let thousands =
        values.len() >= 2 && first <= 9 && (geresh_after == Some(0) || values[1] >= 100);
    let rest = if thousands { &values[1..] } else { &values[..] };
    if rest.windows(2).any(|w| w[1] > w[0]) {
        return None;
    }
    let value: u32 = rest.iter().sum();
    if value >= 1000 {
        return None;
    }
    Some(Letters {
        value,
        thousands: thousands.then_some(first),
        single: values.len() == 1,
    })
}

/// The letters of `1..=999`, without marks; 15 and 16 are `טו` and `טז`, never spelling a
/// name of God.
fn letters(mut n: u32) -> String {
    debug_assert!((1..1000).contains(&n));
    let mut out = String::new();
    while n >= 400 {
        out.push('ת');
        n -= 400;
    }
    for (value, letter) in [(300, 'ש'), (200, 'ר'), (100, 'ק')] {
        if n >= value {
            out.push(letter);
            n -= value;
        }
    }
    match n {
        15 => out.push_str("טו"),
        16 => out.push_str("טז"),
        _ => {
            const TENS: [char; 9] = ['י', 'כ', 'ל', 'מ', 'נ', 'ס', 'ע', 'פ', 'צ'];
            const UNITS: [char; 9] = ['א', 'ב', 'ג', 'ד', 'ה', 'ו', 'ז', 'ח', 'ט'];
            if n >= 10 {
                out.push(TENS[(n / 10 - 1) as usize]);
            }
            if !n.is_multiple_of(10) {
                out.push(UNITS[(n % 10 - 1) as usize]);
            }
        }
    }
    out
}

/// Whether `word` (letters with any marks) is `n` written the usual way, the way [`write`]
/// writes it; final forms count as their ordinary letters.
pub fn is_usual(word: &str, n: u32) -> bool {
    let plain = |c: char| match c {
        'ך' => 'כ',
        'ם' => 'מ',
        'ן' => 'נ',
        'ף' => 'פ',
        'ץ' => 'צ',
        c => c,
    };
    let written = word
        .chars()
        .filter(|c| letter_value(*c).is_some())
        .map(plain);
    (1..1000).contains(&n) && written.eq(letters(n).chars())
}

/// Adds the marks: a geresh after a single letter, gershayim before the last of several.
fn marked(plain: &str) -> String {
    let mut chars: Vec<char> = plain.chars().collect();
    if chars.len() == 1 {
        chars.push(GERESH);
    } else {
        chars.insert(chars.len() - 1, GERSHAYIM);
    }
    chars.into_iter().collect()
}

/// `1..=999` in letters with their marks: `א׳`, `ט״ו`, `תשמ״ט`.
pub fn write(n: u32) -> String {
    marked(&letters(n))
}

/// A year as it is usually written: the 5000s without their thousands (`תשמ״ט`), other
/// millennia with the thousands digit and a geresh (`ד׳תק״ס`), and a round thousand as
/// `ה׳ אלפים`.
pub fn write_year(year: u16) -> String {
    let (thousands, rest) = (u32::from(year) / 1000, u32::from(year) % 1000);
    let digit = letters(thousands);
    match (thousands, rest) {
        (_, 0) => format!("{digit}{GERESH} {THOUSANDS_WORD}"),
        (5, _) => write(rest),
        _ => format!("{digit}{GERESH}{}", write(rest)),
    }
}

/// The word that follows a thousands digit for a round thousand (`ה׳ אלפים`).
pub const THOUSANDS_WORD: &str = "אלפים";
