//! A question's topic: the words naming what it asks about, the words
//! saying what of it is wanted, and which memories answer it.

use crate::grounding::courtesy;

mod held;

/// What answers an asked word.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wanted {
    /// A number: "the plumber's number", "the policy number".
    Number,
    /// An amount of money: "the price", "what it cost" ("£1,240").
    Amount,
    /// A phone number: "her mobile", "the phone number".
    Phone,
    /// A day: "the deadline", "when does it expire".
    Day,
    /// A vehicle's registration, held by its shape whether or not the
    /// memory says "plate" ("Company van: white Transit, GR 3847-19").
    Registration,
    /// A day of the person's own that the memory must name, as any date
    /// of theirs is not it: "korto's birthday" is not the day her fees
    /// are due.
    OwnDay,
    /// Words: "the address", "the name".
    Words,
    /// An email address: "ben's email" is answered by "ben@…".
    Email,
}

/// The detail is one people keep about their own things ("the plumber's
/// number", "the code of the flight"): asking for one is about the
/// user's life.
const KEPT: bool = true;

/// Class: the words that say what of a thing is asked, not which thing
/// ("the plumber's number", "the date", "when it renews"), with what
/// answers each and whether people keep it about their own things. Plain
/// forms; their regular endings are read too ("numbers", "costing").
#[rustfmt::skip]
const ASKED: &[(&str, Wanted, bool)] = &[
    ("number", Wanted::Number, KEPT), ("policy", Wanted::Number, KEPT),
    ("phone", Wanted::Phone, KEPT), ("mobile", Wanted::Phone, KEPT),
    ("cell", Wanted::Phone, KEPT), ("telephone", Wanted::Phone, KEPT),
    ("code", Wanted::Number, KEPT), ("pin", Wanted::Number, KEPT),
    ("passcode", Wanted::Number, KEPT), ("birthday", Wanted::OwnDay, KEPT),
    ("deadline", Wanted::Day, KEPT), ("pw", Wanted::Words, KEPT),
    ("address", Wanted::Words, KEPT), ("email", Wanted::Email, KEPT),
    ("password", Wanted::Words, KEPT), ("login", Wanted::Words, KEPT),
    ("username", Wanted::Words, KEPT), ("account", Wanted::Words, KEPT),
    ("booking", Wanted::Words, KEPT), ("confirmation", Wanted::Words, KEPT),
    ("hint", Wanted::Words, KEPT),
    ("price", Wanted::Amount, !KEPT), ("cost", Wanted::Amount, !KEPT),
    ("amount", Wanted::Amount, !KEPT), ("total", Wanted::Amount, !KEPT),
    ("id", Wanted::Number, !KEPT), ("date", Wanted::Day, !KEPT), ("due", Wanted::Day, !KEPT),
    ("expire", Wanted::Day, !KEPT), ("renew", Wanted::Day, !KEPT),
    ("reg", Wanted::Registration, !KEPT), ("registration", Wanted::Registration, !KEPT),
    ("plate", Wanted::Registration, !KEPT), ("pwd", Wanted::Words, !KEPT),
    ("mail", Wanted::Email, !KEPT), ("name", Wanted::Words, !KEPT),
    ("time", Wanted::Words, !KEPT), ("day", Wanted::Words, !KEPT),
    ("when", Wanted::Words, !KEPT), ("where", Wanted::Words, !KEPT),
    ("plan", Wanted::Words, !KEPT), ("decision", Wanted::Words, !KEPT),
    ("decide", Wanted::Words, !KEPT), ("idea", Wanted::Words, !KEPT),
    ("status", Wanted::Words, !KEPT), ("result", Wanted::Words, !KEPT),
    ("size", Wanted::Words, !KEPT), ("color", Wanted::Words, !KEPT),
    ("colour", Wanted::Words, !KEPT), ("model", Wanted::Words, !KEPT),
    ("version", Wanted::Words, !KEPT), ("reference", Wanted::Number, KEPT),
    ("end", Wanted::Words, !KEPT), ("ending", Wanted::Words, !KEPT),
    // "when does it run out": a day, as "expire" is.
    ("deciding", Wanted::Words, !KEPT), ("run", Wanted::Day, !KEPT),
    ("up", Wanted::Words, !KEPT), ("out", Wanted::Day, !KEPT),
];

/// What of a thing `word` asks for, and whether people keep it about
/// their own things; `None` for a word naming a thing, plain or with a
/// regular ending ("numbers", "costing", "renewed"). A word cut short
/// by three letters or more asks what the whole word does ("ref" for
/// "reference", "conf" for "confirmation"), unless it says a time ("dec")
/// or is a verb of doing of its own ("what currency do they use" asks no
/// username).
fn asked(word: &str) -> Option<(Wanted, bool)> {
    // "costing", "renewing", "priced": the detail with a verb's ending.
    let forms = crate::common_words::plain_forms(word);
    let whole = |plain: &str| word == plain || forms.iter().any(|w| w == plain);
    let cut_short = |plain: &str| {
        word.len() >= 3
            && plain.len() >= word.len() + 3
            && plain.starts_with(word)
            && !crate::grounding::when::is_time_word(word)
            && !is_doing(word)
    };
    ASKED
        .iter()
        .find(|(plain, _, _)| whole(plain))
        .or_else(|| ASKED.iter().find(|(plain, _, _)| cut_short(plain)))
        .map(|&(_, wanted, kept)| (wanted, kept))
}

/// True for a detail people keep about their own things: "number",
/// "address", "passwords".
pub(super) fn is_kept_detail(word: &str) -> bool {
    asked(word).is_some_and(|(_, kept)| kept)
}

/// What a question asks about, as words to look up: the words that name
/// the thing ("plumber", "travel insurance") and those that say what about
/// it is wanted ("number"). A memory answers only when it holds the naming
/// words: "Car insurance renews on 1 March" is no answer about travel
/// insurance.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Topic {
    /// Words naming the thing asked about.
    pub names: Vec<String>,
    /// Words saying what of it is asked ("number", "address", "code").
    pub asked: Vec<String>,
    /// The naming words as the request runs them together ("travel
    /// insurance", "home wi fi"): a memory that holds part of a run and
    /// not all of it is a near miss ("car insurance").
    pub runs: Vec<Vec<String>>,
    /// The runs of the clause that asks, from its last question word on
    /// ("…wants to know what model our boiler is": "boiler"): the thing
    /// asked about, not the story told around it.
    pub asked_runs: Vec<Vec<String>>,
    /// Naming words written as whose ("mum's", "Tom's").
    pub owners: Vec<String>,
    /// Naming words of a clause told after the one that asks ("whats the
    /// front door code again, declan's locked out"): the story around
    /// the question. They tell two fitting memories apart and never rule
    /// one out.
    pub context: Vec<String>,
    /// Nothing but the detail asked names the thing ("whats her email?",
    /// "what's the code?"): a memory holding such a detail by its shape
    /// (an address with "@", a number) names it.
    pub named_by_asking: bool,
    /// It names someone: whose a thing is ("the landlord's email") or a
    /// name written with a capital ("Tell me about Anna"). Only then may
    /// "his" or "her" in a follow-up stand for what it names.
    pub names_someone: bool,
    /// It says the thing is the user's own ("what's my NIF?") and names
    /// no one else's: another's ("Rui's NIF") is a near miss.
    pub mine: bool,
}

/// Words people write for the same thing: a memory holding one holds
/// the others.
const SAME_THING: &[&[&str]] = &[
    &[
        "number",
        "phone",
        "tel",
        "telephone",
        "mobile",
        "landline",
        "cell",
        "no",
    ],
    &["code", "combination", "combo", "pin", "passcode"],
    &["password", "pw", "pwd", "passcode", "key"],
    &["wifi", "wi-fi", "wlan", "wireless"],
    &["birthday", "bday", "birth", "born", "turns"],
    &["booking", "ref", "reference", "confirmation"],
    &["flight", "flights", "fly", "flying", "flies"],
    // A trip's way back: "the flight home" is "Flight back from Porto".
    &["back", "home", "return", "returning", "inbound"],
    // A memory about the parents' house answers for mum's or dad's.
    &["dad", "dads", "father", "parents", "parents'"],
    &[
        "mum", "mums", "mom", "moms", "mother", "parents", "parents'",
    ],
    &["doctor", "doctors", "doctor's", "dr", "gp", "doc"],
    &["address", "lives", "street", "road", "postcode"],
    &["email", "e-mail", "mail"],
    &["reg", "registration", "plate"],
];

/// Class: what the user does or did, said around what a question is
/// about: "seeing", "going" name nothing a memory must hold ("GP
/// appointment with Dr. Okafor" answers "when am I seeing the doctor").
/// Plain forms; their endings are read too. (The verbs of asking and of
/// keeping are [`crate::common_words`]'s, and never reach a topic.)
const DOING: &[&str] = &[
    "see", "saw", "seen", "go", "visit", "leave", "arrive", "come", "use", "take", "bring", "meet",
    "pick",
];

/// True for a verb of what the user does, in any of its forms.
pub(super) fn is_doing(word: &str) -> bool {
    crate::common_words::inflects(word, DOING)
}

/// "19th" as "19": a memory writes the day without its ending.
fn without_ordinal(word: &str) -> &str {
    let digits = word.chars().take_while(char::is_ascii_digit).count();
    match imprint_text::numbers::ordinal(word) {
        Some(_) if digits > 0 => &word[..digits],
        _ => word,
    }
}

/// The part of a long request that asks: its last sentence that ends in
/// a question mark, from the last sentence end or dash before it, when it
/// has several ("…the heating was clicking again. anyway sorry for the
/// rant — do you know when the boiler needs servicing next?" asks "do you
/// know when the boiler needs servicing next?"), though a story may follow
/// it ("what dose of warfarin is Dad on? The pharmacist asked…"); the
/// whole request otherwise.
pub fn asked_part(request: &str) -> &str {
    let trimmed = request.trim();
    // A sentence ends at a mark followed by a space or the end ("3.5"
    // does not); a dash ends a clause wherever it is.
    let ends: Vec<(usize, &str)> = trimmed
        .match_indices(['.', '!', '?', ';', '—', '–'])
        .filter(|(i, mark)| {
            let after = &trimmed[i + mark.len()..];
            after.is_empty()
                || after.starts_with(char::is_whitespace)
                || *mark == "—"
                || *mark == "–"
        })
        .collect();
    let Some(asks) = ends.iter().rposition(|(_, mark)| *mark == "?") else {
        return clause_that_asks(trimmed);
    };
    let (question_end, _) = ends[asks];
    let start = ends[..asks].last().map_or(0, |(i, mark)| i + mark.len());
    // "Can I ask you something? whats the gate code", "do I have travel
    // insurance for the trip? what's the policy no": what follows the
    // question asks too, without its mark, so both are read.
    if opens_a_question_word(&trimmed[question_end + 1..]) {
        return trimmed[start..].trim();
    }
    let clause = trimmed[start..=question_end].trim();
    let whole = start == 0 && question_end + 1 == trimmed.len();
    // "nana's adress? want to post her a card": a short question that
    // opens the request and names something, with a story after it that
    // says nothing more of the thing ("…? the guest one" does).
    let opens_naming = start == 0
        && imprint_text::words::plain(clause)
            .iter()
            .any(|w| !crate::common_words::names_nothing_kept(w) && !courtesy::names_nothing(w))
        && !qualifies(&trimmed[question_end + 1..]);
    // A clause of a word or two ("…, right?") asks nothing alone.
    if whole || (imprint_text::words::plain(clause).len() < 3 && !opens_naming) {
        trimmed
    } else {
        clause
    }
}

/// The clause of `request` that asks, without the story told before or
/// after it (see [`split_told_after`]): "what kind of drug is meloxicam
/// anyway? the vet just said it's for moss's hips" asks "what kind of
/// drug is meloxicam anyway?".
pub fn asking_clause(request: &str) -> &str {
    split_told_after(asked_part(request)).0
}

/// `asked` split where a clause told after the question begins: "whats
/// the front door code again, declan's locked out lol" asks "whats the
/// front door code again"; "declan's locked out lol" is the story. A
/// clause that opens with a question word asks too, and one that opens
/// as a qualifier of the thing asked ("…, the one for the basement",
/// "…, for the green roof job") is part of it.
fn split_told_after(asked: &str) -> (&str, String) {
    let Some(question) = asked
        .split_whitespace()
        .find(|w| opens_a_question_word(w))
        .map(|w| w.as_ptr() as usize - asked.as_ptr() as usize)
    else {
        return split_told_about_it(asked);
    };
    let (clause, after) = split_after(asked, question);
    // "Tomás is asking what time our train leaves": who asks, and why,
    // is told before the question, unless the question points back at it
    // ("I need to ring the accountant, what's his number").
    let before = &asked[..question];
    let points_back = imprint_text::words::plain(&clause[question..])
        .iter()
        .any(|w| imprint_text::pronouns::is_third_person(w));
    let asks_before = imprint_text::words::plain(before)
        .iter()
        .any(|w| crate::common_words::is_asking_verb(w));
    if asks_before && !points_back {
        (clause[question..].trim(), format!("{before} {after}"))
    } else {
        (clause, after.to_string())
    }
}

/// `asked`, a request with no question word, split before a clause that
/// points back at what it names ("nif number pls, the hotel wants it for
/// the supplier file": "it" is the NIF): that clause is told about the
/// thing, and names nothing a memory must hold. A clause that points
/// back at nothing qualifies the thing ("gate code, the one at mum's").
fn split_told_about_it(asked: &str) -> (&str, String) {
    let told = asked.char_indices().find(|&(i, c)| {
        (c == ',' || asked[i..].starts_with(" - "))
            && imprint_text::words::plain(&asked[i..])
                .iter()
                .any(|w| imprint_text::pronouns::is_third_person(w))
            && !imprint_text::words::plain(&asked[..i]).is_empty()
    });
    match told {
        Some((at, _)) => (
            asked[..at].trim(),
            asked[at..].trim_start_matches([',', ' ', '-']).to_string(),
        ),
        None => (asked, String::new()),
    }
}

/// The verbs of `words` (plain) that the speaker does, after "do I",
/// "should we": "which meter number do i recharge", "how much do we
/// charge for a course".
fn done_by_the_speaker(words: &[String]) -> impl Iterator<Item = &String> {
    (2..words.len())
        .filter(|&i| {
            imprint_text::pronouns::is_speaking_subject(&words[i - 1])
                && crate::common_words::is_function_word(&words[i - 2])
                && !crate::common_words::is_function_word(&words[i])
        })
        .map(|i| &words[i])
}

/// `asking` without what the thing is wanted for, said with "a" or "an"
/// ("i need the NIF for a form": a form is nothing of the user's kept)
/// or as a clause of its own after "so" ("whats the meter number so i
/// can buy units": what the user will do with it), which joins the story
/// `told_after`; as it is when nothing before it names anything.
fn without_its_purpose(asking: &str, told_after: String) -> (&str, String) {
    let lower = asking.to_ascii_lowercase();
    let with_a = [" for a ", " for an "]
        .iter()
        .filter_map(|purpose| lower.find(purpose));
    // "so" with a subject after it opens a clause: "so i can", "so that".
    let so_clause = lower.match_indices(" so ").map(|(at, _)| at).filter(|&at| {
        lower[at + 4..]
            .split_whitespace()
            .next()
            .is_some_and(|next| next == "that" || imprint_text::pronouns::is_subject(next))
    });
    let at = with_a.chain(so_clause).min();
    // What the speaker does names nothing: "how much do we charge for an
    // open water course" asks of the course.
    let names_before = |before: &str| {
        let words = imprint_text::words::plain(before);
        let done: Vec<&String> = done_by_the_speaker(&words).collect();
        words.iter().any(|w| {
            !crate::common_words::names_nothing_kept(w)
                && !courtesy::names_nothing(w)
                && asked(w).is_none()
                && !done.contains(&w)
        })
    };
    match at {
        Some(at) if names_before(&asking[..at]) => {
            (&asking[..at], format!("{} {told_after}", &asking[at..]))
        }
        _ => (asking, told_after),
    }
}

/// `asked` split after the clause its question word at `question` opens
/// (see [`split_told_after`]).
fn split_after(asked: &str, question: usize) -> (&str, &str) {
    let boundary = asked[question..]
        .match_indices([',', ';', '!', '.', '—', '–', '-'])
        .map(|(i, mark)| (question + i, question + i + mark.len()))
        .find(|&(at, after)| {
            let spaced = asked[after..].starts_with(char::is_whitespace);
            match &asked[at..after] {
                // A hyphen inside a word ("wi-fi") joins; only " - " breaks.
                "-" => spaced && asked[..at].ends_with(char::is_whitespace),
                "—" | "–" => true,
                _ => spaced,
            }
        });
    let Some((at, after)) = boundary else {
        return (asked, "");
    };
    let rest = asked[after..].trim();
    if rest.is_empty() || qualifies(rest) || opens_a_question_word(rest) || asks_its_detail(rest) {
        (asked, "")
    } else {
        (asked[..at].trim(), rest)
    }
}

/// True when `rest`, told after a question, opens as a qualifier of the
/// thing asked ("the one for the basement", "for the green roof job");
/// true when it says nothing.
fn qualifies(rest: &str) -> bool {
    let first_two: Vec<String> = imprint_text::words::plain(rest)
        .into_iter()
        .take(2)
        .collect();
    match first_two.as_slice() {
        [the, one] if the == "the" && matches!(one.as_str(), "one" | "ones") => true,
        // A preposition opens a clause qualifying the thing asked ("…,
        // for the green roof job", "…, at the cottage").
        [first, ..] => imprint_text::words::is_preposition(first),
        [] => true,
    }
}

/// True when `rest`, told after a clause naming someone, asks a detail of
/// them by a pronoun ("the guy who fixes our freezers, his number?"):
/// the question is the whole, "who" opening no question of its own.
fn asks_its_detail(rest: &str) -> bool {
    match imprint_text::words::plain(rest).as_slice() {
        [whose, detail, ..] => {
            imprint_text::pronouns::is_third_person(whose)
                && imprint_text::pronouns::says_whose(whose)
                && is_asked_of(detail)
        }
        _ => false,
    }
}

/// With no question mark, the last clause that opens with a question
/// word, to the end ("dad worked in osaka for years but random q, whats
/// the actual capital of japan" asks "whats the actual capital of
/// japan"); the whole request when none after the first does.
fn clause_that_asks(request: &str) -> &str {
    let start = request
        .match_indices([',', '.', '!', ';', ':', '-', '—', '–'])
        .map(|(i, mark)| i + mark.len())
        .rfind(|&start| {
            let rest = &request[start..];
            rest.starts_with(char::is_whitespace) && opens_a_question_word(rest)
        });
    // A clause that names nothing ("…lerato's car registration, what is
    // it"), only what the speaker did ("deposit - how much did we pay"),
    // or only a detail of what it points back at ("stewarts invoice, what
    // number did i give it") asks of what the words before it name.
    let names_something = |clause: &str| {
        let words = imprint_text::words::plain(clause);
        let done: Vec<&String> = done_by_the_speaker(&words).collect();
        // "it", not "her": who a person is, is the reference's to settle.
        let points_at = |w: &String| {
            imprint_text::pronouns::points(w) == Some(imprint_text::pronouns::Points::Thing)
        };
        let points_back = words.iter().any(points_at);
        // What "it" does ("what time does it go", "how much did it
        // cost"): the verb after "it" and its auxiliary says what is
        // asked of it, and names nothing of its own.
        let its_verb: Vec<usize> = (1..words.len().saturating_sub(1))
            .filter(|&i| points_at(&words[i]) && crate::common_words::is_auxiliary(&words[i - 1]))
            .map(|i| i + 1)
            .collect();
        words.iter().enumerate().any(|(i, w)| {
            !crate::common_words::names_nothing_kept(w)
                && !done.contains(&w)
                && !its_verb.contains(&i)
                && (!points_back || !is_asked_of(w))
        })
    };
    match start {
        Some(start)
            if imprint_text::words::plain(&request[start..]).len() >= 3
                && names_something(&request[start..]) =>
        {
            request[start..].trim()
        }
        _ => request,
    }
}

/// True when `text`'s first word past an opener ("hey", "ok", "um") is a
/// question word ("what's", "how").
pub(super) fn opens_a_question_word(text: &str) -> bool {
    text.split_whitespace()
        .map(|word| {
            word.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                .to_lowercase()
        })
        .find(|word| !crate::grounding::courtesy::is_opener(word))
        .is_some_and(|first| crate::common_words::is_question_word(&first))
}

/// `word` without a verb's or plural's ending, for words of 6 letters or
/// more: "servicing", "serviced" and "services" are "servic".
fn stem(word: &str) -> &str {
    if word.len() < 6 {
        return word;
    }
    ["ing", "ed", "es", "e", "s"]
        .iter()
        .find_map(|end| word.strip_suffix(end))
        .filter(|stem| stem.len() >= 4)
        .unwrap_or(word)
}

/// True when one of `words` (a memory's) is `word`, one of its other
/// names, or the same word with another ending ("meeting", "meetings";
/// "servicing", "serviced").
fn holds(words: &[String], word: &str) -> bool {
    // A word typed with a slip has the other names of the word it meant
    // ("adress": "lives").
    let same = SAME_THING
        .iter()
        .find(|group| group.contains(&word))
        .or_else(|| {
            SAME_THING
                .iter()
                .find(|group| group.iter().any(|other| slipped(word, other)))
        })
        .map_or(&[][..], |group| *group);
    let word = without_ordinal(word);
    if month_written_short(words, word) {
        return true;
    }
    words.iter().any(|w| {
        let w = without_ordinal(w.trim_end_matches("'s"));
        w == word
            || same.contains(&w)
            // "reno" for "renovation", "booking" for "book"; not
            // "accountant" for "account".
            || (w.len().min(word.len()) >= 4 && (w.starts_with(word) || ends_on(word, w)))
            // "mias", "mums": a short name's "'s" typed without its mark.
            || (w.len() >= 3 && word.strip_suffix('s') == Some(w))
            || (w.len() >= 6 && word.len() >= 6 && stem(w) == stem(word))
            || one_root(w, word)
            || abbreviates(word, w)
            || slipped(word, w)
            // "quoet" for "quoted": the slip is of the word's plain form.
            || crate::common_words::plain_forms(w)
                .iter()
                .any(|plain| slipped(word, plain))
    })
}

/// True when `word` names a month in full ("january") and `words` (a
/// memory's, in order) write it short beside a day's number ("14 Jan",
/// "Jan 14th"); "Jan Olsen" or "jan's" is someone, not the month.
fn month_written_short(words: &[String], word: &str) -> bool {
    use crate::grounding::when::month;
    let Some(month_named) = month(word).filter(|_| word.len() > 3) else {
        return false;
    };
    let is_day = |i: usize| {
        words.get(i).is_some_and(|w| {
            without_ordinal(w)
                .parse::<u32>()
                .is_ok_and(|d| (1..=31).contains(&d))
        })
    };
    words.iter().enumerate().any(|(i, w)| {
        w.len() == 3
            && month(w) == Some(month_named)
            && (i.checked_sub(1).is_some_and(is_day) || is_day(i + 1))
    })
}

/// True when `longer` is `word` with a regular ending ("booking",
/// "meetings"), not another word that opens with it ("accountant" is no
/// "account").
fn ends_on(longer: &str, word: &str) -> bool {
    longer.len() > word.len()
        && crate::common_words::plain_forms(longer)
            .iter()
            .any(|plain| plain == word)
}

/// True when `a` and `b` open alike for seven letters or more and differ
/// in at most their last two letters past that: two words of one root
/// ("electrics", "electrician"; "insulation", "insulated").
fn one_root(a: &str, b: &str) -> bool {
    let shared = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let (shorter, longer) = {
        let (x, y) = (a.chars().count(), b.chars().count());
        (x.min(y), x.max(y))
    };
    // One word whole at the start of a longer one is another word
    // ("account", "accountant"), unless only an ending follows.
    let whole_inside = shared == shorter && longer > shorter + 2;
    shared >= 7 && shared + 2 >= shorter && !whole_inside
}

/// True when `typed` is `word` with one slip of typing: two letters
/// swapped ("alram", "qoute") or one letter dropped or doubled
/// ("presure", "addresss"). Both of five letters or more and with the same
/// first letter; a letter typed for another is no slip ("quota" is not
/// "quote", "trail" and "trial" are both words but one swap apart).
fn slipped(typed: &str, word: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (typed.chars().collect(), word.chars().collect());
    if a.len().min(b.len()) < 5 || a == b || a[0] != b[0] || !a.iter().all(|c| c.is_alphabetic()) {
        return false;
    }
    let (shorter, longer) = if a.len() <= b.len() {
        (&a, &b)
    } else {
        (&b, &a)
    };
    match longer.len() - shorter.len() {
        0 => {
            let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) else {
                return false;
            };
            i + 1 < a.len() && a[i] == b[i + 1] && a[i + 1] == b[i] && a[i + 2..] == b[i + 2..]
        }
        1 => {
            let i = (0..shorter.len())
                .find(|&i| shorter[i] != longer[i])
                .unwrap_or(shorter.len());
            shorter[i..] == longer[i + 1..]
        }
        _ => false,
    }
}

/// True when `short` is written as people shorten `word` by its
/// consonants ("acct" for "account", "appt" for "appointment", "mgr" for
/// "manager"): three letters or more, the same first letter, no vowel
/// after it, each letter in order in the word, and the word at least two
/// letters longer.
fn abbreviates(short: &str, word: &str) -> bool {
    let is_vowel = |c: char| matches!(c, 'a' | 'e' | 'i' | 'o' | 'u');
    let mut letters = short.chars();
    let (Some(first), true) = (letters.next(), short.len() >= 3) else {
        return false;
    };
    if !short.chars().all(|c| c.is_ascii_lowercase())
        || letters.clone().any(is_vowel)
        || !word.starts_with(first)
        || word.len() < short.len() + 2
    {
        return false;
    }
    let mut rest = word.chars().skip(1);
    letters.all(|c| rest.any(|w| w == c))
}

/// True for a word that says what of a thing is asked.
fn is_asked_of(word: &str) -> bool {
    asked(word).is_some()
}

/// The words of `request`'s asking clause that would say what is asked
/// ("cell", "phone", "code") but run straight on into a word naming a
/// thing ("ama's sickle cell review", "the phone bill"), each with the
/// phrases it makes with the naming words beside it. When a memory holds
/// one of those phrases, the word is part of the thing's name in the
/// user's own words ([`Topic::of_naming`]), not the detail asked.
pub fn asked_words_running_into_a_name(request: &str) -> Vec<(String, Vec<[String; 2]>)> {
    // A mark after a word ("number, mama wants it") ends the run.
    let tokens: Vec<(String, bool)> = asking_clause(request)
        .split_whitespace()
        .filter_map(|token| {
            let word = imprint_text::words::plain(token).join("");
            let runs_on = token.ends_with(|c: char| c.is_alphanumeric());
            (!word.is_empty()).then_some((word, runs_on))
        })
        .collect();
    let names_a_thing = |word: &str| {
        !is_asked_of(word)
            && !crate::common_words::names_nothing_kept(word)
            && !courtesy::names_nothing(word)
            && !crate::grounding::when::is_time_word(word)
            && !is_doing(word)
    };
    tokens
        .windows(2)
        .enumerate()
        .filter(|(_, pair)| pair[0].1 && is_asked_of(&pair[0].0) && names_a_thing(&pair[1].0))
        .map(|(i, pair)| {
            let (word, next) = (&pair[0].0, &pair[1].0);
            let mut phrases = vec![[word.clone(), next.clone()]];
            if let Some((before, true)) = i.checked_sub(1).map(|j| &tokens[j]) {
                if names_a_thing(before) {
                    phrases.push([before.clone(), word.clone()]);
                }
            }
            (word.clone(), phrases)
        })
        .collect()
}

impl Topic {
    /// The topic of `request` (see [`crate::grounding::reference::topic`]),
    /// split into naming and asked words.
    pub fn of(request: &str, projects: &[String]) -> Self {
        Self::of_naming(request, projects, &[])
    }

    /// As [`Topic::of`], with `naming`, words that would say what is
    /// asked, read as naming the thing ("cell" of "sickle cell review";
    /// see [`asked_words_running_into_a_name`]).
    pub fn of_naming(request: &str, projects: &[String], naming: &[String]) -> Self {
        let is_asked_of = |word: &str| is_asked_of(word) && !naming.iter().any(|n| n == word);
        let asked = asked_part(request);
        // The story told before the question ("units ran out at the
        // store, whats the meter number") is told around it, as one told
        // after it is; a question before it is no story.
        let told_before = request
            .find(asked)
            .map_or("", |at| request[..at].trim())
            .trim_end_matches([',', ';', ':']);
        let told_before = match opens_a_question_word(told_before) {
            true => "",
            false => told_before,
        };
        let (asking, told_after) = split_told_after(asked);
        let told_after = format!("{told_before} {told_after}");
        let (asking, told_after) = without_its_purpose(asking, told_after);
        let request = &one_word_names(asking);
        let words = crate::grounding::reference::topic(request, projects);
        // "Which hotel…", "what room…": the noun after the question word
        // is what is asked, unless a detail asked follows it ("which
        // meter number": the meter's number).
        let lower = imprint_text::words::plain(request);
        let asked_noun: Vec<&String> = (1..lower.len())
            .filter(|&i| matches!(lower[i - 1].as_str(), "which" | "what"))
            .filter(|&i| !lower.get(i + 1).is_some_and(|next| is_asked_of(next)))
            .map(|i| &lower[i])
            .collect();
        let (asked, names): (Vec<String>, Vec<String>) = words
            .into_iter()
            .partition(|w| is_asked_of(w) || asked_noun.contains(&w));
        // Greetings, politeness and fillers name nothing ("hey can u tell
        // me …", "… at the office pls"), nor does what the user does
        // ("when am I seeing the doctor").
        let mut names: Vec<String> = names
            .into_iter()
            .filter(|w| {
                !courtesy::names_nothing(w)
                    && !is_doing(w)
                    && !crate::common_words::is_slipped_function_word(w)
            })
            .collect();
        // "which meter number do i recharge", "how much do we owe the
        // builder": the verb after "do I", "should we" is what the user
        // does, not what a memory names, when something else is named.
        let done_by_the_speaker: Vec<&String> = done_by_the_speaker(&lower).collect();
        if names.iter().any(|n| !done_by_the_speaker.contains(&n)) {
            names.retain(|n| !done_by_the_speaker.contains(&n));
        }
        // "my flight back from Iceland": the way back is named, as "the
        // flight home" is; the flight out is no answer.
        let way_back = lower.windows(2).any(|w| {
            matches!(
                w[0].as_str(),
                "flight" | "flights" | "train" | "trip" | "journey" | "ferry"
            ) && w[1] == "back"
        });
        if way_back && !names.iter().any(|n| n == "back") {
            names.push("back".to_string());
        }
        // "pull up the policy number", "dig out…": a request's first word
        // with a particle after it is the verb it asks with.
        if let [first, particle, ..] = lower.as_slice() {
            if matches!(particle.as_str(), "up" | "out") {
                names.retain(|n| n != first);
            }
        }
        // "What's the number?": the asked word is all there is to find;
        // of "the plate number", "the policy number" the last says what is
        // asked and those before it name the thing.
        let (names, asked) = match asked.as_slice() {
            _ if !names.is_empty() => (names, asked),
            [thing @ .., head] if !thing.is_empty() => (thing.to_vec(), vec![head.clone()]),
            _ => (asked, Vec::new()),
        };
        let named_by_asking = !names.is_empty() && names.iter().all(|w| is_asked_of(w));
        let runs = runs_of(request, &names);
        let asked_runs = runs_of(from_last_question_word(request), &names);
        // "mum's house", "Tom's birthday": whose it is must be held.
        let owners: Vec<String> = lower
            .iter()
            .filter(|w| w.ends_with("'s"))
            .map(|w| w.trim_end_matches("'s").to_string())
            .filter(|w| names.contains(w))
            .collect();
        // "what time our train leaves on the 21st": the day of the month
        // said tells the train out from the train home.
        let days = lower
            .iter()
            .filter(|w| w.len() > 2 && without_ordinal(w).len() < w.len())
            .cloned();
        let context = crate::grounding::reference::topic(&one_word_names(&told_after), projects)
            .into_iter()
            .chain(days)
            .filter(|w| {
                !names.contains(w)
                    && !courtesy::names_nothing(w)
                    && !is_doing(w)
                    && !crate::common_words::is_slipped_function_word(w)
            })
            .collect();
        let names_someone = !owners.is_empty()
            || crate::grounding::plan::claims::capitalized_names(request, false)
                .iter()
                .any(|name| names.contains(&name.to_lowercase()));
        let mine = owners.is_empty()
            && lower.iter().any(|w| {
                imprint_text::pronouns::is_first_person(w) && imprint_text::pronouns::says_whose(w)
            });
        Self {
            names,
            asked,
            runs,
            asked_runs,
            names_someone,
            mine,
            owners,
            context,
            named_by_asking,
        }
    }

    /// The topic of a short follow-up that leans on the question before
    /// it, `previous`:
    /// - "and Dana's?", "what about the hotel?": new names, the same
    ///   detail asked ("the reg" of "whats the reg on my mazda?");
    /// - "ok what's his number then": the same one named (the landlord
    ///   of "what's my landlord's email?"), a new detail asked.
    ///
    /// `None` for a request that stands alone.
    pub fn following(&self, request: &str, previous: &Topic) -> Option<Topic> {
        let words = imprint_text::words::plain(request);
        if words.len() > 7 || previous.is_empty() {
            return None;
        }
        let first = |w: &[&str]| words.len() > w.len() && words.iter().zip(w).all(|(a, b)| a == b);
        let more = first(&["and"]) || first(&["what", "about"]) || first(&["how", "about"]);
        let pronoun = words
            .iter()
            .any(|w| imprint_text::pronouns::is_third_person(w));
        let own_detail_only = self.asked.is_empty() && self.names.iter().all(|w| is_asked_of(w));
        let single = |names: &[String]| names.iter().map(|n| vec![n.clone()]).collect();
        // "when's his birthday?" after "Which is the biggest planet?":
        // "his" stands for no planet.
        let of_a_person = words
            .iter()
            .any(|w| imprint_text::pronouns::is_of_a_person(w));
        if pronoun && own_detail_only && (!of_a_person || previous.names_someone) {
            // The one the pronoun stands for: whose the thing was, or what
            // was named.
            let names = if previous.owners.is_empty() {
                previous.names.clone()
            } else {
                previous.owners.clone()
            };
            return Some(Topic {
                runs: single(&names),
                asked_runs: single(&names),
                owners: previous.owners.clone(),
                names,
                asked: self.names.clone(),
                context: Vec::new(),
                named_by_asking: false,
                names_someone: previous.names_someone,
                mine: false,
            });
        }
        if more && !self.names.is_empty() && self.asked.is_empty() && !previous.asked.is_empty() {
            return Some(Topic {
                asked: previous.asked.clone(),
                ..self.clone()
            });
        }
        None
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Every word, the naming ones first, and the other names people
    /// write for each ("bday": "birthday"): what to search for.
    pub fn words(&self) -> Vec<String> {
        let mut words: Vec<String> = Vec::new();
        for word in self.names.iter().chain(&self.asked) {
            let group = SAME_THING.iter().find(|g| g.contains(&word.as_str()));
            for other in std::iter::once(word.as_str())
                .chain(group.into_iter().flat_map(|g| g.iter().copied()))
            {
                if !words.iter().any(|w| w == other) {
                    words.push(other.to_string());
                }
            }
        }
        words
    }

    /// A topic naming only `names`, each a run of its own ("Theo").
    pub fn of_names(names: Vec<String>) -> Self {
        Self {
            runs: names.iter().map(|n| vec![n.clone()]).collect(),
            names,
            ..Self::default()
        }
    }

    /// True when nothing asked is a detail of a known kind: only a noun
    /// after "what" or "which" ("what dose", "which school"). A memory
    /// near enough in meaning to vouch for answers it in its own words
    /// ("Dad takes warfarin 3 mg" for "what dose of warfarin is Dad on").
    pub fn asks_no_known_detail(&self) -> bool {
        self.asked.iter().all(|w| !is_asked_of(w))
    }

    /// "plumber's number", "Tom's birthday", "travel insurance for the
    /// Porto trip": what the request names, as the user wrote it
    /// (`request`), for "I found nothing about …". The span of the first
    /// clause naming it, from its first naming word to its last (a detail
    /// asked included); the naming words alone when the span runs long.
    pub fn phrase(&self, request: &str) -> String {
        let plain = |w: &str| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
                .trim_end_matches("'s")
                .to_string()
        };
        let detail = self.detail().map(str::to_string);
        let marked = |w: &str| {
            let w = plain(w);
            self.names.contains(&w) || detail.as_ref() == Some(&w)
        };
        let request = one_word_names(request);
        for clause in request.split([',', '.', '?', '!', ';']) {
            let words: Vec<&str> = clause.split_whitespace().collect();
            let (Some(first), Some(last)) = (
                words.iter().position(|w| marked(w)),
                words.iter().rposition(|w| marked(w)),
            ) else {
                continue;
            };
            let span = &words[first..=last];
            let unmarked = span.iter().filter(|w| !marked(w)).count();
            if unmarked <= 2 {
                return span
                    .iter()
                    .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\''))
                    .collect::<Vec<_>>()
                    .join(" ");
            }
            break;
        }
        self.names.join(" ")
    }

    /// True when one word names the thing and nothing says whose or
    /// which it is ("how much was the quote?", "when's the tax due?"):
    /// every memory holding that word is a thing of that kind, and none
    /// is singled out by the request.
    pub fn names_only_a_kind(&self) -> bool {
        matches!(self.runs.as_slice(), [run] if run.len() == 1)
            && self.owners.is_empty()
            && self.context.is_empty()
            && !self.names_someone
            && !self.mine
    }

    /// The detail asked for, when it is a thing one can tell ("number",
    /// "address"): "Tell me the number, and I'll save it."
    pub fn detail(&self) -> Option<&str> {
        // "the password hint": all asked, and so all naming.
        self.asked
            .iter()
            .chain(&self.names)
            .map(String::as_str)
            .find(|w| is_kept_detail(w) || asks_digits(w))
            // "due", "expires", "run out" say a day is asked, and are
            // nothing to tell; "the date" is.
            .filter(|w| *w == "date" || !matches!(asked(w), Some((Wanted::Day, false))))
    }
}

/// True when `content` holds a detail of the kind `word` asks for by its
/// shape: a number for "code", an address with "@" for "email", a month or
/// a date for "deadline" (a birthday is held only where it is named).
fn held_by_shape(word: &str, content: &str) -> bool {
    match asked(word) {
        Some((Wanted::Number, _)) => holds_a_number(content),
        Some((Wanted::Amount, _)) => holds_an_amount(content),
        Some((Wanted::Phone, _)) => has_phone_number(content),
        Some((Wanted::Email, _)) => content
            .split_whitespace()
            .any(|w| w.contains('@') && w.contains('.')),
        Some((Wanted::Registration, _)) => holds_a_registration(content),
        Some((Wanted::Day, _)) => {
            imprint_text::words::plain(content)
                .iter()
                .any(|w| crate::grounding::when::month(w).is_some())
                || content.split_whitespace().any(is_date_in_digits)
        }
        _ => false,
    }
}

/// True when `text` holds a number as long as a phone's: six digits or
/// more, perhaps grouped by spaces, dashes, dots or brackets ("087 660
/// 2154", "(902) 555-0122"); "no. 16" is a house's. Five digits standing
/// alone between marks ("Keith, my skipper. 51472.") are a small
/// country's phone, where a postcode or a sum has a word beside it
/// ("Springfield, IL 62704", "75011 Paris", "£48000").
fn has_phone_number(text: &str) -> bool {
    let text = without_amounts(text);
    let alone = text
        .split([',', ';', ':', '.', '(', ')'])
        .flat_map(|piece| piece.split(" - "))
        .map(str::trim)
        .any(|piece| piece.len() == 5 && piece.chars().all(|c| c.is_ascii_digit()));
    alone
        || text
            .split(|c: char| !c.is_ascii_digit() && !" -.()+".contains(c))
            .any(|run| run.chars().filter(char::is_ascii_digit).count() >= 6)
}

/// True for "number", with any ending: a number of any kind, a phone's
/// too ("kodjo's number"), where "code" or "pin" asks no phone.
fn asks_a_phone_or_any_number(word: &str) -> bool {
    word == "number"
        || crate::common_words::plain_forms(word)
            .iter()
            .any(|w| w == "number")
}

/// True when `text` holds an amount: a number outside its phone numbers
/// ("£2,350", "quote 348,000 kr"; not "Jan, plumber: 0176 555 1234").
pub fn holds_an_amount(text: &str) -> bool {
    // "450 000 F", "2 350 000 FCFA": thousands grouped by spaces.
    !space_grouped_amounts(text).is_empty()
        || text
            .split(|c: char| !c.is_ascii_digit() && !" -.()+".contains(c))
            .filter(|run| run.chars().filter(char::is_ascii_digit).count() < 6)
            .any(|run| run.chars().any(|c| c.is_ascii_digit()))
}

/// True when `text` holds a number or code: three digits in a row
/// ("3382"), or a code of letters and digits with three digits or more
/// ("27-QL-83", "4-7-1-9"); a time ("11:10") or a house's "no. 16" is
/// none.
pub(super) fn holds_a_number(text: &str) -> bool {
    // "quoted D38,000 for the wiring": an amount is no number one keeps
    // to ring, enter or quote back.
    let text = without_amounts(text);
    has_digit_run(&text, 3)
        || text.split_whitespace().any(|token| {
            let token = token.trim_matches(|c: char| !c.is_ascii_alphanumeric());
            token
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '/')
                && token.chars().filter(char::is_ascii_digit).count() >= 3
        })
}

/// True when `text` holds a vehicle registration by its shape: one to
/// three words of capitals, digits and dashes, 4 to 10 of them letters
/// or digits, unbroken by a mark, that hold both, with letters between
/// digits or digits between letters ("2784 JP 01", "AB12 CDE", "KCA
/// 123A"), or capitals before digits joined by a dash ("GR 3847-19").
/// Capitals and digits alone say an amount ("GHS 600"), an invoice
/// ("INV-2614") or a model ("K2700"); a longer group a policy's number
/// ("HM-55210-C").
pub(super) fn holds_a_registration(text: &str) -> bool {
    let mut runs: Vec<Vec<&str>> = vec![Vec::new()];
    for token in text.split_whitespace() {
        let bare = token
            .trim_start_matches('(')
            .trim_end_matches(['.', ',', ';', ':', ')']);
        let fits = !bare.is_empty()
            && bare
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '-');
        if fits {
            runs.last_mut().unwrap().push(bare);
        }
        // A mark after it ("4473,") or a word of another shape ends a run.
        if !fits || bare.len() < token.len() {
            runs.push(Vec::new());
        }
    }
    runs.iter().any(|run| is_registration(run))
}

/// True for words shaped as [`holds_a_registration`] reads a plate.
fn is_registration(words: &[&str]) -> bool {
    #[derive(Clone, Copy, PartialEq)]
    enum Chunk {
        Letters,
        Digits,
        DashedDigits,
    }
    let characters = words
        .iter()
        .flat_map(|w| w.chars())
        .filter(|c| *c != '-')
        .count();
    if !(1..=3).contains(&words.len()) || !(4..=10).contains(&characters) {
        return false;
    }
    // A plate's groups are short: at most three letters or four digits
    // ("HM-55210-C" is a policy's number).
    let mut group = (None::<bool>, 0);
    for c in words.iter().flat_map(|w| w.chars().chain([' '])) {
        let digit = c.is_ascii_digit();
        group = match c {
            '-' | ' ' => (None, 0),
            _ if group.0 == Some(digit) => (Some(digit), group.1 + 1),
            _ => (Some(digit), 1),
        };
        if group.1 > if digit { 4 } else { 3 } {
            return false;
        }
    }
    let mut chunks: Vec<Chunk> = Vec::new();
    for word in words {
        let mut previous: Option<char> = None;
        for c in word.chars() {
            let chunk = match c {
                '-' => None,
                c if c.is_ascii_digit() => Some(Chunk::Digits),
                _ => Some(Chunk::Letters),
            };
            match chunk {
                Some(Chunk::Digits)
                    if previous == Some('-')
                        && matches!(chunks.last(), Some(Chunk::Digits | Chunk::DashedDigits)) =>
                {
                    *chunks.last_mut().unwrap() = Chunk::DashedDigits;
                }
                // A new word starts a chunk of its own.
                Some(chunk) if chunks.last() != Some(&chunk) || previous.is_none() => {
                    chunks.push(chunk)
                }
                _ => {}
            }
            previous = Some(c);
        }
    }
    let letters = |c: Chunk| c == Chunk::Letters;
    chunks.windows(3).any(|w| {
        (letters(w[0]) && !letters(w[1]) && letters(w[2]))
            || (!letters(w[0]) && letters(w[1]) && !letters(w[2]))
    }) || (chunks.contains(&Chunk::Letters) && chunks.contains(&Chunk::DashedDigits))
}

/// True when `token` is a number grouped in thousands by commas, as
/// amounts are written ("D38,000", "£2,350.50", "1,450,000;"); phones,
/// codes and accounts are grouped by spaces or dashes, if at all.
fn is_grouped_amount(token: &str) -> bool {
    let number = token
        .trim_start_matches(|c: char| !c.is_ascii_digit())
        .trim_end_matches(|c: char| !c.is_ascii_digit());
    let whole = number.split('.').next().unwrap_or(number);
    let mut groups = whole.split(',');
    let first = groups.next().unwrap_or_default();
    let rest: Vec<&str> = groups.collect();
    !rest.is_empty()
        && (1..=3).contains(&first.len())
        && first.chars().all(|c| c.is_ascii_digit())
        && rest
            .iter()
            .all(|group| group.len() == 3 && group.chars().all(|c| c.is_ascii_digit()))
}

/// `text` without its amounts grouped in thousands ("D38,000", "450 000
/// F"), whose digits are no phone, code or account.
fn without_amounts(text: &str) -> String {
    let spaced = space_grouped_amounts(text);
    text.split_whitespace()
        .enumerate()
        .filter(|(i, token)| !is_grouped_amount(token) && !spaced.contains(i))
        .map(|(_, token)| token)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The places (among `text`'s whitespace-split tokens) of the numbers
/// grouped in thousands by spaces, as French-speaking countries write
/// amounts ("450 000 F", "2 350 000 FCFA"): one to three digits not
/// opening with 0 or "+", then groups of three, with a currency's sign or
/// code beside them. A phone in pairs ("07 58 31 24 96"), fours ("0421
/// 5037") or threes ("628 451 903"), or "07700 900 412", is none.
fn space_grouped_amounts(text: &str) -> Vec<usize> {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    fn digits(token: &str) -> &str {
        token.trim_end_matches(|c: char| !c.is_ascii_digit())
    }
    // Said as money: a currency's sign or code beside it ("450 000 F",
    // "€ 2 350 000"); "628 451 903" alone is a phone in threes.
    let sign = |token: &str| {
        let token = token.trim_end_matches(['.', ',', ';', ')']);
        ((1..=4).contains(&token.len()) && token.chars().all(|c| c.is_ascii_uppercase()))
            || token.chars().any(is_currency_sign)
    };
    let is_group = |token: &str| {
        let core = digits(token);
        core.len() == 3 && core.chars().all(|c| c.is_ascii_digit())
    };
    let mut places = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let head = tokens[i].trim_start_matches(|c: char| !c.is_ascii_digit() && c != '+');
        let core = digits(head);
        let opens = (1..=3).contains(&core.len())
            && core.chars().all(|c| c.is_ascii_digit())
            && !core.starts_with('0')
            // "450 000 F," may end a clause; "450, 000" is two numbers.
            && head.len() == core.len()
            // "07700 900 412": the tail of a phone.
            && !(i > 0 && tokens[i - 1].ends_with(|c: char| c.is_ascii_digit()));
        let mut end = i + 1;
        if opens {
            // A group ends at its mark: "350 000." closes the amount.
            while end < tokens.len()
                && is_group(tokens[end])
                && tokens[end - 1]
                    .chars()
                    .last()
                    .is_some_and(|c| c.is_ascii_digit())
            {
                end += 1;
            }
        }
        let as_money = tokens.get(end).is_some_and(|next| sign(next))
            || tokens[i].starts_with(is_currency_sign)
            || (i > 0 && sign(tokens[i - 1]));
        if end > i + 1 && as_money {
            places.extend(i..end);
            i = end;
        } else {
            i += 1;
        }
    }
    places
}

/// True for a currency's sign ("€", "$", "£", "₦").
fn is_currency_sign(c: char) -> bool {
    // Unicode's block of currency symbols, and the older signs before it.
    ('\u{20A0}'..='\u{20CF}').contains(&c) || matches!(c, '$' | '£' | '¥' | '¢')
}

/// True when `text` holds `len` digits in a row ("0176", "3382").
fn has_digit_run(text: &str, len: usize) -> bool {
    text.split(|c: char| !c.is_ascii_digit())
        .any(|run| run.len() >= len)
}

/// The words of a memory's `content` as a topic is held in it: plain,
/// with the initials of each name it writes in capitals ("bosh" of "Bank
/// of St Helena"): people type a long name by its initials.
fn content_words(content: &str) -> Vec<String> {
    let text = one_word_names(content);
    let mut words = imprint_text::words::plain(&text);
    words.extend(initials(&text));
    words
}

/// The initials of the names `text` writes in capitals, three words or
/// more, small function words within counted ("Bank of St Helena":
/// "bosh"); four letters at least, as fewer ("sam" of "South Atlantic
/// Marine") are as likely a word or a name of their own.
fn initials(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut run: Vec<String> = Vec::new();
    let mut close = |run: &mut Vec<String>| {
        while run
            .last()
            .is_some_and(|w| crate::common_words::is_function_word(w))
        {
            run.pop();
        }
        let letters: String = run.iter().filter_map(|w| w.chars().next()).collect();
        if run.len() >= 3 && letters.chars().count() >= 4 {
            found.push(letters);
        }
        run.clear();
    };
    for token in text.split_whitespace() {
        let word = token.trim_matches(|c: char| !c.is_alphanumeric());
        let capital = crate::grounding::reference::namesakes::is_capitalised(word);
        let within = !run.is_empty()
            && word.chars().all(char::is_lowercase)
            && crate::common_words::is_function_word(word);
        if capital || within {
            run.push(word.to_lowercase());
        } else {
            close(&mut run);
        }
        // A mark after a word ends the name: "Bank of St Helena: …".
        if !token.ends_with(|c: char| c.is_alphanumeric()) {
            close(&mut run);
        }
    }
    close(&mut run);
    found
}

/// "wi-fi" and "e-mail" as the one word people also write.
fn one_word_names(text: &str) -> String {
    let mut text = text.to_string();
    for (written, word) in [
        ("wi-fi", "wifi"),
        ("Wi-Fi", "wifi"),
        ("WiFi", "wifi"),
        ("e-mail", "email"),
    ] {
        text = text.replace(written, word);
    }
    text
}

/// True for an asked word whose answer holds a digit: a number or a day.
fn asks_digits(word: &str) -> bool {
    asked(word).is_some_and(|(wanted, _)| {
        matches!(
            wanted,
            Wanted::Number
                | Wanted::Amount
                | Wanted::Phone
                | Wanted::Day
                | Wanted::OwnDay
                | Wanted::Registration
        )
    })
}

/// True for a word that is a date in digits: "23/3", "2027-06-30",
/// "1.3.": digits on both sides of a separator. A phone number that ends
/// a sentence ("0161 555 0190.") is not.
fn is_date_in_digits(word: &str) -> bool {
    let chars: Vec<char> = word.chars().collect();
    chars
        .windows(3)
        .any(|w| w[0].is_ascii_digit() && matches!(w[1], '/' | '-' | '.') && w[2].is_ascii_digit())
}

/// `request` from its last question word on ("the engineer wants to know
/// what model our boiler is" → "what model our boiler is"); all of it
/// when it has none.
fn from_last_question_word(request: &str) -> &str {
    let start = request
        .split_whitespace()
        .filter(|token| {
            let plain = token
                .trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                .to_lowercase();
            crate::common_words::is_question_word(&plain)
        })
        .map(|token| token.as_ptr() as usize - request.as_ptr() as usize)
        .next_back()
        .unwrap_or(0);
    &request[start..]
}

/// The naming words as the request runs them together: a run breaks at
/// any other word and at punctuation ("my cousin is visiting, what's the
/// password for our home wi-fi" runs "cousin", "visiting", "home wi fi").
fn runs_of(request: &str, names: &[String]) -> Vec<Vec<String>> {
    let mut runs: Vec<Vec<String>> = Vec::new();
    for clause in request.split([',', '.', '?', '!', ';', ':', '(', ')']) {
        let mut run: Vec<String> = Vec::new();
        for word in imprint_text::words::plain(clause) {
            let plain = word.trim_end_matches("'s").to_string();
            if names.contains(&plain) {
                if !run.contains(&plain) {
                    run.push(plain);
                }
            } else if !run.is_empty() {
                runs.push(std::mem::take(&mut run));
            }
        }
        if !run.is_empty() {
            runs.push(run);
        }
    }
    runs.dedup();
    runs
}
