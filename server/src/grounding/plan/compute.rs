//! Sums and unit conversions Imprint works out itself: "what's 15% of 80",
//! "12 times 12", "roughly how many miles is 5 km", "how many cm in an
//! inch", "100 f in celsius". A small model gets these wrong often (5 km
//! "is approximately 800 miles"); a table and a multiplication do not.
//!
//! A request is worked out only when its words are one such sum and
//! nothing else but small words around it; anything more is the model's.

/// The answer to a request that is only a sum or a conversion, in a
/// sentence with the user's own unit words; `None` for anything else.
pub fn answer(request: &str) -> Option<String> {
    let tokens = tokens(request);
    let (sentence, used) = conversion(&tokens).or_else(|| arithmetic(&tokens))?;
    let rest_is_small_words = tokens
        .iter()
        .enumerate()
        .all(|(i, t)| used.contains(&i) || is_small_word(t));
    rest_is_small_words.then_some(sentence)
}

/// Class: the words of asking for a sum or a conversion that no other
/// class holds ("quick question: …", "convert…", "work out…"); function
/// words, courtesy, verbs of asking ("tell me", "make") and words that
/// soften a number ("roughly") stand around a sum too.
const SUM_WORDS: &[&str] = &[
    "quick",
    "question",
    "calculate",
    "convert",
    "compute",
    "work",
    "equals",
    "equal",
    "answer",
    "degrees",
    "degree",
];

/// True for a word that may stand around a sum without changing it.
fn is_small_word(word: &str) -> bool {
    crate::common_words::is_function_word(word)
        || crate::grounding::courtesy::names_nothing(word)
        || crate::common_words::is_asking_verb(word)
        || crate::grounding::when::softens(word)
        || SUM_WORDS.contains(&word)
}

/// The request's words, lower case: "15%" is "15" and "%", "5km" is "5"
/// and "km", "1,000" is "1000".
fn tokens(request: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    for term in imprint_text::words::terms(request) {
        match number_then_rest(&term) {
            Some(split) => tokens.extend(split),
            None => tokens.push(term),
        }
    }
    tokens
}

/// "15%" → ["15", "%"], "5km" → ["5", "km"], "1,000" → ["1000"].
fn number_then_rest(word: &str) -> Option<Vec<String>> {
    let end = word
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_digit() || c == '.' || c == ','))
        .map_or(word.len(), |(i, _)| i);
    if end == 0 {
        return None;
    }
    let digits = word[..end].replace(',', "");
    digits.parse::<f64>().ok()?;
    let mut split = vec![digits];
    let rest = word[end..].trim_start_matches('°');
    if !rest.is_empty() {
        split.push(rest.to_string());
    }
    Some(split)
}

fn number(token: &str) -> Option<f64> {
    match token {
        "a" | "an" | "one" => Some(1.0),
        "two" => Some(2.0),
        "three" => Some(3.0),
        "four" => Some(4.0),
        "five" => Some(5.0),
        "ten" => Some(10.0),
        "hundred" => Some(100.0),
        _ => token
            .parse::<f64>()
            .ok()
            .filter(|n| n.is_finite() && n.abs() < 1e12),
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Quantity {
    Length,
    Mass,
    Volume,
    Time,
    Temperature,
}

/// A unit: what it measures, and where it sits on the quantity's base
/// scale (metres, grams, millilitres, seconds, kelvin): `base = value ×
/// size + zero`. Only temperatures have a zero of their own.
#[derive(Clone, Copy)]
struct Unit {
    quantity: Quantity,
    size: f64,
    zero: f64,
    name: &'static str,
}

fn unit(token: &str) -> Option<Unit> {
    use Quantity::*;
    let (quantity, size, name) = match token {
        "mm" | "millimeter" | "millimeters" | "millimetre" | "millimetres" => (Length, 0.001, "mm"),
        "cm" | "centimeter" | "centimeters" | "centimetre" | "centimetres" => (Length, 0.01, "cm"),
        "m" | "meter" | "meters" | "metre" | "metres" => (Length, 1.0, "m"),
        "km" | "kms" | "kilometer" | "kilometers" | "kilometre" | "kilometres" => {
            (Length, 1000.0, "km")
        }
        "inch" | "inches" => (Length, 0.0254, "inch"),
        "ft" | "foot" | "feet" => (Length, 0.3048, "feet"),
        "yd" | "yard" | "yards" => (Length, 0.9144, "yards"),
        "mi" | "mile" | "miles" => (Length, 1609.344, "miles"),
        "mg" | "milligram" | "milligrams" => (Mass, 0.001, "mg"),
        "g" | "gram" | "grams" | "gramme" | "grammes" => (Mass, 1.0, "g"),
        "kg" | "kgs" | "kilo" | "kilos" | "kilogram" | "kilograms" => (Mass, 1000.0, "kg"),
        "oz" | "ounce" | "ounces" => (Mass, 28.349_523_125, "ounces"),
        "lb" | "lbs" | "pound" | "pounds" => (Mass, 453.592_37, "pounds"),
        "stone" | "stones" => (Mass, 6_350.293_18, "stone"),
        "tonne" | "tonnes" => (Mass, 1_000_000.0, "tonnes"),
        "ml" | "milliliter" | "milliliters" | "millilitre" | "millilitres" => (Volume, 1.0, "ml"),
        "cl" | "centiliter" | "centiliters" | "centilitre" | "centilitres" => (Volume, 10.0, "cl"),
        "l" | "liter" | "liters" | "litre" | "litres" => (Volume, 1000.0, "litres"),
        "s" | "sec" | "secs" | "second" | "seconds" => (Time, 1.0, "seconds"),
        "min" | "mins" | "minute" | "minutes" => (Time, 60.0, "minutes"),
        "h" | "hr" | "hrs" | "hour" | "hours" => (Time, 3600.0, "hours"),
        "day" | "days" => (Time, 86_400.0, "days"),
        "week" | "weeks" => (Time, 604_800.0, "weeks"),
        "c" | "celsius" | "centigrade" => (Temperature, 1.0, "°C"),
        "f" | "fahrenheit" => (Temperature, 5.0 / 9.0, "°F"),
        "k" | "kelvin" => (Temperature, 1.0, "K"),
        _ => return None,
    };
    let zero = match name {
        "°C" => 273.15,
        "°F" => 273.15 - 32.0 * 5.0 / 9.0,
        _ => 0.0,
    };
    Some(Unit {
        quantity,
        size,
        zero,
        name,
    })
}

fn convert(value: f64, from: Unit, to: Unit) -> Option<f64> {
    (from.quantity == to.quantity).then(|| (value * from.size + from.zero - to.zero) / to.size)
}

/// Where a unit is among the tokens from `at` on, skipping "degrees".
fn unit_at(tokens: &[String], at: usize) -> Option<(usize, Unit)> {
    let mut i = at;
    while tokens
        .get(i)
        .is_some_and(|t| t == "degrees" || t == "degree")
    {
        i += 1;
    }
    Some((i, unit(tokens.get(i)?)?))
}

/// "how many U1 (are/is) in/per N U2", "how many U1 is N U2", "N U1
/// in/to/into/as U2": the sentence and the tokens it used.
fn conversion(tokens: &[String]) -> Option<(String, Vec<usize>)> {
    for start in 0..tokens.len() {
        // N U1 (in|to|into|as) U2
        if let Some(value) = number(&tokens[start]) {
            if let Some((u1_at, from)) = unit_at(tokens, start + 1) {
                let link = u1_at + 1;
                if tokens
                    .get(link)
                    .is_some_and(|t| matches!(t.as_str(), "in" | "to" | "into" | "as"))
                {
                    if let Some((u2_at, to)) = unit_at(tokens, link + 1) {
                        let result = convert(value, from, to)?;
                        let sentence = said(value, &tokens[u1_at], result, &tokens[u2_at], from);
                        return Some((sentence, (start..=u2_at).collect()));
                    }
                }
            }
        }
        // how many U1 (are|is)? (in|per|is|are|make) N U2
        if tokens[start] == "many" || tokens[start] == "much" {
            let Some((u1_at, to)) = unit_at(tokens, start + 1) else {
                continue;
            };
            let mut i = u1_at + 1;
            while tokens.get(i).is_some_and(|t| {
                matches!(t.as_str(), "are" | "is" | "in" | "per" | "make" | "there")
            }) {
                i += 1;
            }
            let Some(value) = tokens.get(i).and_then(|t| number(t)) else {
                continue;
            };
            let Some((u2_at, from)) = unit_at(tokens, i + 1) else {
                continue;
            };
            let result = convert(value, from, to)?;
            let sentence = said(value, &tokens[u2_at], result, &tokens[u1_at], from);
            return Some((sentence, (start..=u2_at).collect()));
        }
    }
    None
}

/// "5 km is about 3.11 miles." with the user's unit words ("inch" for
/// one, as typed).
fn said(value: f64, from_word: &str, result: f64, to_word: &str, from: Unit) -> String {
    let from_word = if from.quantity == Quantity::Temperature {
        from.name.to_string()
    } else {
        from_word.to_string()
    };
    let to_word = unit(to_word)
        .filter(|u| u.quantity == Quantity::Temperature)
        .map_or(to_word.to_string(), |u| u.name.to_string());
    let (shown, exact) = shown(result);
    let is = if exact { "is" } else { "is about" };
    let space = |w: &str| if w.starts_with('°') { "" } else { " " }.to_string() + w;
    format!(
        "{}{} {is} {shown}{}.",
        shown_plain(value),
        space(&from_word),
        space(&to_word)
    )
}

/// "+", "-", "times", "%": the sentence and the tokens it used.
fn arithmetic(tokens: &[String]) -> Option<(String, Vec<usize>)> {
    for start in 0..tokens.len() {
        let at = |i: usize| tokens.get(i).map(String::as_str);
        // square root of N
        if at(start) == Some("square")
            && at(start + 1) == Some("root")
            && at(start + 2) == Some("of")
        {
            let n = number(at(start + 3)?)?;
            if n < 0.0 {
                return None;
            }
            let sentence = format!(
                "The square root of {} {}",
                shown_plain(n),
                result_said(n.sqrt())
            );
            return Some((sentence, (start..=start + 3).collect()));
        }
        let Some(a) = at(start).and_then(number).filter(|_| is_digits(at(start))) else {
            continue;
        };
        // N% of M, N percent of M
        if matches!(at(start + 1), Some("%" | "percent" | "per")) {
            let mut i = start + 2;
            if at(start + 1) == Some("per") {
                if at(i) != Some("cent") {
                    continue;
                }
                i += 1;
            }
            if at(i) != Some("of") {
                continue;
            }
            let b = number(at(i + 1)?)?;
            let sentence = format!(
                "{}% of {} {}",
                shown_plain(a),
                shown_plain(b),
                result_said(a * b / 100.0)
            );
            return Some((sentence, (start..=i + 1).collect()));
        }
        // N squared
        if at(start + 1) == Some("squared") {
            let sentence = format!("{} squared {}", shown_plain(a), result_said(a * a));
            return Some((sentence, vec![start, start + 1]));
        }
        let (op, width) = match (at(start + 1), at(start + 2)) {
            (Some("times" | "x" | "*" | "×"), _) => ('×', 1),
            (Some("multiplied"), Some("by")) => ('×', 2),
            (Some("plus" | "+"), _) => ('+', 1),
            (Some("minus" | "-"), _) => ('−', 1),
            (Some("divided"), Some("by")) => ('÷', 2),
            (Some("/" | "÷"), _) => ('÷', 1),
            _ => continue,
        };
        let b_at = start + 1 + width;
        let Some(b) = at(b_at).and_then(number).filter(|_| is_digits(at(b_at))) else {
            continue;
        };
        let result = match op {
            '×' => a * b,
            '+' => a + b,
            '−' => a - b,
            _ if b == 0.0 => return None,
            _ => a / b,
        };
        let sentence = format!(
            "{} {op} {} {}",
            shown_plain(a),
            shown_plain(b),
            result_said(result)
        );
        return Some((sentence, (start..=b_at).collect()));
    }
    None
}

/// Sums take numbers written in digits: "one" is too often a word.
fn is_digits(token: Option<&str>) -> bool {
    token.is_some_and(|t| t.starts_with(|c: char| c.is_ascii_digit()))
}

fn result_said(result: f64) -> String {
    let (shown, exact) = shown(result);
    if exact {
        format!("is {shown}.")
    } else {
        format!("is about {shown}.")
    }
}

/// A result with at most 2 decimals (3 significant digits below 1), and
/// whether that is exact.
fn shown(value: f64) -> (String, bool) {
    let decimals = if value.abs() >= 1.0 || value == 0.0 {
        2
    } else {
        (2 - value.abs().log10().floor() as i32).clamp(2, 8) as usize
    };
    let text = format!("{value:.decimals$}");
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    };
    let exact = text.parse::<f64>().is_ok_and(|v| (v - value).abs() < 1e-9);
    let text = if text == "-0" { "0".to_string() } else { text };
    (text, exact)
}

fn shown_plain(value: f64) -> String {
    shown(value).0
}

#[cfg(test)]
mod tests {
    use super::answer;

    #[test]
    fn conversions_are_worked_out_with_the_users_unit_words() {
        let cases = [
            (
                "roughly how many miles is 5 km",
                "5 km is about 3.11 miles.",
            ),
            ("quick one - how many cm in an inch", "1 inch is 2.54 cm."),
            (
                "how many kilometers is 10 miles",
                "10 miles is about 16.09 kilometers.",
            ),
            ("convert 100 F to celsius", "100°F is about 37.78°C."),
            ("what's 20 degrees celsius in fahrenheit?", "20°C is 68°F."),
            ("300 kelvin in celsius", "300 K is 26.85°C."),
            ("how many minutes are in a day", "1 day is 1440 minutes."),
            ("how many hours is 180 minutes", "180 minutes is 3 hours."),
            (
                "how many grams in a pound",
                "1 pound is about 453.59 grams.",
            ),
            ("5km in miles", "5 km is about 3.11 miles."),
        ];
        for (request, expected) in cases {
            assert_eq!(answer(request).as_deref(), Some(expected), "{request}");
        }
    }

    #[test]
    fn sums_are_worked_out() {
        let cases = [
            ("what's 15% of 80", "15% of 80 is 12."),
            ("what is 25 percent of 200?", "25% of 200 is 50."),
            ("what's 12 times 12", "12 × 12 is 144."),
            ("calculate 7 divided by 2", "7 ÷ 2 is 3.5."),
            (
                "what's the square root of 81",
                "The square root of 81 is 9.",
            ),
            ("1,250 + 17", "1250 + 17 is 1267."),
            ("10 / 3", "10 ÷ 3 is about 3.33."),
            // Verbs of asking and words that soften stand around a sum.
            ("can you tell me what 12 times 12 makes", "12 × 12 is 144."),
            ("need to know roughly what 15% of 80 is", "15% of 80 is 12."),
        ];
        for (request, expected) in cases {
            assert_eq!(answer(request).as_deref(), Some(expected), "{request}");
        }
    }

    #[test]
    fn anything_more_than_a_sum_is_the_models() {
        for request in [
            "what's the boiling point of water in fahrenheit",
            "how many legs does a spider have",
            "remind me in 5 minutes to call Anna",
            "my flight is 2 hours to Porto",
            "how many km did I run on Saturday",
            "what is 5 km in kg",
            "10 divided by 0",
            "how do you say thank you in spanish",
            "one plus one",
        ] {
            assert_eq!(answer(request), None, "{request}");
        }
    }
}
