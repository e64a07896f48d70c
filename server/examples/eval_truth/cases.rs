//! The truth evaluation's memories and cases (issue 26), written for it:
//! phrasings the reply rules were not written for. Expected strings are
//! compared normalised (lowercase letters and digits only), so
//! "020 7946 0318" is matched by "79460318".

use chrono::Weekday::{self, Fri, Mon, Sat, Sun, Thu, Wed};

/// A seeded memory and the facts in it that only it holds (normalised
/// the same way), which an answer about something else must not show.
pub struct Memory {
    pub content: &'static str,
    pub project: Option<&'static str>,
    pub facts: &'static [&'static str],
}

const fn m(content: &'static str, facts: &'static [&'static str]) -> Memory {
    Memory {
        content,
        project: None,
        facts,
    }
}

const fn work(content: &'static str, facts: &'static [&'static str]) -> Memory {
    Memory {
        content,
        project: Some("Work"),
        facts,
    }
}

/// Near misses come in pairs or threes: two phones of the same kind,
/// two insurances, the flight out and the flight back, two wifis, one
/// colleague's birthday (and another colleague without one).
#[rustfmt::skip]
pub const MEMORIES: &[Memory] = &[
    m("Dentist is Dr. Okafor at Brightsmile on Harrow Rd, tel 020 7946 0318", &["79460318", "okafor", "brightsmile"]),
    m("Vet for Biscuit: Riverside Animal Clinic, 020 7946 0775", &["79460775", "riverside"]),
    m("GP is Dr Lindqvist, Elmfield Surgery - 01632 960557", &["960557", "lindqvist", "elmfield"]),
    m("Car insurance is with Hartwell Mutual, policy HM-55210-C, renews 14 March", &["hm55210c", "hartwell"]),
    m("home insurance = Kestrel Home Cover, policy no KH/88134, renewal every September", &["kh88134", "kestrel"]),
    m("Flight out to Porto: TAP TP1337, 19 Dec 06:55 from Heathrow T2, booking ref QZ8RLM", &["qz8rlm", "tp1337"]),
    m("Flight back from Porto 2 Jan, Ryanair FR8824 to Stansted, booking ref JW4TXA", &["jw4txa", "fr8824"]),
    m("Home wifi network Lemontree_5G, password saffron-otter-91", &["saffronotter91", "lemontree"]),
    work("Office wifi: ACME-Guest / password Quill2026!", &["quill2026", "acmeguest"]),
    work("Priya (design team) birthday 23 March - she loves dark chocolate", &["23march"]),
    work("Tom from accounts prefers phone calls after 2pm, never before", &[]),
    m("bike lock combination is 4-7-1-9", &["4719"]),
    m("Locker code at the gym: 3382", &["3382"]),
    m("Mum's landline 01632 960482", &["960482"]),
    m("Dad's mobile: 07700 900615", &["900615"]),
    m("Landlord Mr Fenwick. Rent £1,150 due on the 1st, sort code 20-45-77 account 53810294", &["fenwick", "53810294"]),
    m("Residents parking permit PZ-40417, runs out end of April", &["pz40417"]),
    m("Book club is the first Thursday of the month at Nadia's, flat 4B", &["nadia"]),
    m("Spare house key is with Mrs Oduya at number 27", &["oduya"]),
    m("Electricity is with Volt&Co, customer number 6620-1187-04", &["6620118704", "voltco"]),
    m("Water: Severnside Water account 900 441 276", &["900441276", "severnside"]),
    m("Maple Lane Primary school office 01632 960219, Leo's teacher is Ms Varga", &["960219", "varga"]),
    work("Project Falcon standup Tue and Thu at 9:15 in room Aster", &["falcon", "aster"]),
    work("Project Heron demo moved to 11 Dec, room Birch", &["heron", "birch"]),
    m("My blood type is O negative", &["onegative"]),
    m("Shoe size 43 EU, jeans 32/32", &["3232"]),
    m("Golden Lotus takeaway: our usual is no. 14 and 22, no coriander", &["goldenlotus", "coriander"]),
    m("Laptop serial C02XK4PRJG5H, bought Feb 2024, warranty until Feb 2027", &["c02xk4prjg5h"]),
    m("Plumber Gary Tidmarsh 07700 900342, fixed the boiler in November", &["900342", "tidmarsh"]),
    m("Electrician - Bea Kowalczyk 07700 900871", &["900871", "kowalczyk"]),
    m("Biscuit's microchip number 977200008123456, booster jab due in May", &["977200008123456"]),
    m("Ines (my sister) lives at 14 Corran Street, Leith, EH6 8QT", &["corran", "eh68qt"]),
];

/// The four kinds of case the issue asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Read,
    Save,
    Remind,
    General,
}

pub const KINDS: [Kind; 4] = [Kind::Read, Kind::Save, Kind::Remind, Kind::General];

impl Kind {
    pub fn key(self) -> &'static str {
        match self {
            Kind::Read => "read",
            Kind::Save => "save",
            Kind::Remind => "remind",
            Kind::General => "general",
        }
    }
}

/// A time of day; `either_half` when the user gave no am/pm ("at 8"),
/// so `h` and `h + 12` both match.
#[derive(Clone, Copy, Debug)]
pub struct Hm {
    pub h: u32,
    pub m: u32,
    pub either_half: bool,
}

const fn at(h: u32, m: u32) -> Hm {
    Hm {
        h,
        m,
        either_half: false,
    }
}

const fn at_either(h: u32, m: u32) -> Hm {
    Hm {
        h,
        m,
        either_half: true,
    }
}

/// When a reminder is due, as the user said it.
#[derive(Clone, Copy, Debug)]
pub enum When {
    /// On that weekday (the coming one or the one after) at a time.
    Weekday(Weekday, Hm),
    /// Tomorrow at a time.
    Tomorrow(Hm),
    /// The next (month, day) at a time.
    Date(u32, u32, Hm),
    /// So many minutes after the message was sent.
    In(i64),
    /// So many days from today at a time.
    DaysAt(i64, Hm),
    /// Repeating ("daily", "weekdays", "weekly"), on a weekday for weekly.
    Every(&'static str, Option<Weekday>, Hm),
}

/// What a case expects.
#[derive(Clone, Copy, Debug)]
pub enum Check {
    /// The answer holds one of `any` and none of `not`.
    Read {
        any: &'static [&'static str],
        not: &'static [&'static str],
    },
    /// A new memory holds every one of `all`.
    Save { all: &'static [&'static str] },
    /// A new reminder is due then, its text holding one of `words`.
    Remind {
        when: When,
        words: &'static [&'static str],
    },
    /// World knowledge: one of `any`, none of `not` (a wrong answer),
    /// and no memory's facts.
    Knows {
        any: &'static [&'static str],
        not: &'static [&'static str],
    },
    /// Nothing saved about it: no value stated, says it found nothing,
    /// and none of `not` (a near miss's facts).
    Absent { not: &'static [&'static str] },
}

/// What the user says when asked.
#[derive(Clone, Copy, Debug)]
pub enum Reply {
    /// The first option offered ("You decide" when none is).
    First,
    /// The user's own words: the request left something out.
    Text(&'static str),
}

pub struct Case {
    pub kind: Kind,
    pub prompt: &'static str,
    pub reply: Reply,
    pub check: Check,
}

impl Case {
    /// A clear request: one that gives all it needs (it has no planned
    /// answer to a question).
    pub fn clear(&self) -> bool {
        matches!(self.reply, Reply::First)
    }
}

const fn case(kind: Kind, prompt: &'static str, check: Check) -> Case {
    Case {
        kind,
        prompt,
        reply: Reply::First,
        check,
    }
}

type Words = &'static [&'static str];

const fn read(prompt: &'static str, any: Words, not: Words) -> Case {
    case(Kind::Read, prompt, Check::Read { any, not })
}

const fn save(prompt: &'static str, all: Words) -> Case {
    case(Kind::Save, prompt, Check::Save { all })
}

const fn remind(prompt: &'static str, when: When, words: Words) -> Case {
    case(Kind::Remind, prompt, Check::Remind { when, words })
}

const fn knows(prompt: &'static str, any: Words, not: Words) -> Case {
    case(Kind::General, prompt, Check::Knows { any, not })
}

const fn absent(prompt: &'static str, not: Words) -> Case {
    case(Kind::General, prompt, Check::Absent { not })
}

const fn asked(mut case: Case, text: &'static str) -> Case {
    case.reply = Reply::Text(text);
    case
}

use When::{Date, DaysAt, Every, In, Tomorrow};

#[rustfmt::skip]
pub const CASES: &[Case] = &[
    // Reads, each with a near miss in memory.
    read("whats the dentists number again", &["79460318"], &["79460775", "960557"]),
    read("I need to ring the vet about Biscuit, what's their number?", &["79460775"], &["79460318", "960557"]),
    read("when does my car insurance renew", &["14march", "march14", "1403"], &["kh88134"]),
    read("booking code for the flight home from porto?", &["jw4txa"], &["qz8rlm"]),
    read("which flight am I on going out to Porto? need the ref for check-in", &["qz8rlm"], &["jw4txa"]),
    read("wifi pw at the office pls", &["quill2026"], &["saffronotter91"]),
    read("my cousin is visiting, what's the password for our home wi-fi", &["saffronotter91"], &["quill2026"]),
    read("when is Priya's bday", &["23march", "march23"], &[]),
    read("forgot the code for my bike lock :(", &["4719"], &["3382"]),
    read("gym locker combo?", &["3382"], &["4719"]),
    read("Can you give me my mum's phone number", &["960482"], &["900615", "960219"]),
    read("dads mobile number", &["900615"], &["960482"]),
    read("who has our spare key", &["oduya"], &[]),
    read("The vet asked for Biscuit's microchip number, what is it?", &["977200008123456"], &[]),
    read("I'm on the phone with the electricity company and they want my customer number", &["6620118704"], &["900441276"]),
    read("plumber's number? the boiler is making that banging noise again", &["900342"], &["900871"]),
    read("which room is the Heron demo in", &["birch"], &["aster"]),
    read("how much is the rent and when do I pay it", &["1150"], &[]),
    // Saves with exact numbers and names.
    save("remember that my locker at the swimming pool is 118", &["118"]),
    save("Save this: Ines's new mobile is 07700 900563", &["ines", "07700900563"]),
    save("note down that I parked at the hospital on level -2, bay D14", &["d14"]),
    save("Keep in mind: Marcus Whitfield is the new head of finance, he started on Monday", &["marcuswhitfield"]),
    save("The roofer (Hollis & Sons) quoted £3,480 for the whole job, save that", &["hollis", "3480"]),
    save("my NHS number is 943 476 5919 - store it pls", &["9434765919"]),
    save("remember the garage door code changed to 5521", &["5521"]),
    save("jot down: Aunt Rosalind's flight lands 16:40 at Gatwick, flight EZY8107", &["rosalind", "ezy8107", "1640"]),
    save("Save my Ocado order number, 7784-2210-LX", &["77842210lx"]),
    save("pls remember the babysitter is called Anouk and charges 12.50 an hour", &["anouk", "1250"]),
    save("Write down that Biscuit weighed 4.6 kg at his last checkup", &["biscuit", "46"]),
    save("new wifi at the cabin: network Pinecrest, password larch&moss77. remember it", &["pinecrest", "larchmoss77"]),
    save("Remember: tyre pressure for the Golf is 36 psi front and 33 rear", &["golf", "36", "33"]),
    save("I paid Devika back £85 for the concert tickets, keep a note of that", &["devika", "85"]),
    save("store the frame number of my bike: WTU318C0457K", &["wtu318c0457k"]),
    save("rember my reading glasses are +1.75 in both eyes", &["175"]),
    asked(save("save the allotment gate code", &["8402"]), "it's 8402"),
    // Reminders: explicit, relative and recurring times.
    remind("remind me to call the landlord at 18:30 on Friday", When::Weekday(Fri, at(18, 30)), &["landlord"]),
    remind("Set a reminder for tomorrow at 7:15am, take the bins out", Tomorrow(at(7, 15)), &["bin"]),
    remind("can you remind me on the 15th of January at 9am to renew the parking permit", Date(1, 15, at(9, 0)), &["permit"]),
    remind("remind me wednesday 2pm to book Biscuit's booster", When::Weekday(Wed, at(14, 0)), &["booster"]),
    remind("Put in a reminder for Thursday at 10:40, dentist checkup", When::Weekday(Thu, at(10, 40)), &["dentist"]),
    remind("remind me tmrw at 8.05pm to message Priya", Tomorrow(at(20, 5)), &["priya"]),
    remind("On December 18 at 17:00 remind me to pick up the turkey", Date(12, 18, at(17, 0)), &["turkey"]),
    remind("remind me in 2 hours to take the bread out", In(120), &["bread"]),
    remind("in 45 mins remind me to move the car", In(45), &["car"]),
    remind("ping me in half an hour about the laundry", In(30), &["laundry"]),
    remind("remind me in 3 days at 9am to chase the roofer about the quote", DaysAt(3, at(9, 0)), &["roofer", "quote"]),
    remind("Can you nudge me in 90 minutes to call Dad back", In(90), &["dad"]),
    remind("every Monday at 8 remind me to put the recycling out", Every("weekly", Some(Mon), at_either(8, 0)), &["recycling"]),
    remind("remind me every day at 21:30 to take my tablets", Every("daily", None, at(21, 30)), &["tablet"]),
    remind("weekdays at 7:50 remind me to grab my work badge", Every("weekdays", None, at(7, 50)), &["badge"]),
    remind("I need a reminder each Sunday at 6pm to water the plants", Every("weekly", Some(Sun), at(18, 0)), &["plant", "water"]),
    remind("remind me every friday 5pm to send my timesheet", Every("weekly", Some(Fri), at(17, 0)), &["timesheet"]),
    asked(remind("remind me to call Ines on saturday", When::Weekday(Sat, at(10, 0)), &["ines"]), "10 in the morning"),
    // General questions: world knowledge, and facts not in memory.
    knows("whats the boiling point of water in fahrenheit", &["212"], &["212degreescelsius", "100degreesfahrenheit"]),
    knows("how do you say thank you in spanish", &["gracias"], &[]),
    knows("How many days are there in a leap year?", &["366"], &[]),
    knows("what's the capital of Australia", &["canberra"], &[]),
    knows("quick one - how many cm in an inch", &["254"], &[]),
    knows("who wrote pride and prejudice", &["austen"], &[]),
    knows("roughly how many miles is 5 km", &["31"], &[]),
    knows("what gas do plants take in for photosynthesis?", &["carbondioxide", "co2"], &[]),
    knows("what's 15% of 80", &["12"], &[]),
    absent("what's my passport number?", &[]),
    absent("do I have travel insurance for the Porto trip? what's the policy no", &["hm55210c", "kh88134"]),
    absent("when's Tom's birthday", &["23march"]),
    absent("what's my car reg", &["hm55210c"]),
    absent("which hotel am I staying at in Porto?", &[]),
    absent("whats the wifi password at mum's house", &["saffronotter91", "quill2026"]),
    absent("remind me what my national insurance number is", &[]),
    absent("Ines's phone number?", &["eh68qt"]),
    absent("when is my next dentist appointment", &["79460318"]),
    absent("what's the gate code at work", &["4719", "3382"]),
];
