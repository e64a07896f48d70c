//! The truth evaluation's printed lines and its Markdown table.

use std::fmt::Write as _;

use super::cases::{Case, Check, Kind, KINDS, MEMORIES};
use super::Outcome;
use crate::bench_support::Samples;
use crate::{percent, short};

fn kind_name(case: &Case) -> &'static str {
    match case.check {
        Check::Knows { .. } => "general (knowledge)",
        Check::Absent { .. } => "general (not in memory)",
        _ => case.kind.key(),
    }
}

/// One case, printed as it ends.
pub fn line(case: &Case, outcome: &Outcome) -> String {
    format!(
        "{} {:<24} {:>5.1}s {:<9} tools [{}] asked {} | {}\n    answer: {}{}",
        if outcome.pass() { "PASS" } else { "FAIL" },
        kind_name(case),
        outcome.seconds,
        outcome.end,
        outcome.tools.join(","),
        outcome.questions.len(),
        case.prompt,
        short(&outcome.answer, 200),
        if outcome.pass() {
            String::new()
        } else {
            format!("\n    why: {}", outcome.why.join("; "))
        }
    )
}

/// Text for a table cell: one line, no column breaks, no HTML.
fn cell(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('|', "\\|")
        .replace("\r\n", "\n")
        .replace('\n', "<br>")
}

fn target(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "**missed**"
    }
}

/// The run's report (Markdown), as printed and kept.
pub fn table(model: &str, label: &str, results: &[(&Case, Outcome)]) -> String {
    let mut out = String::new();
    let now = chrono::Local::now().format("%Y-%m-%d %H:%M %:z");
    let _ = writeln!(
        out,
        "# Truth: eval_questions (IMPRINT_EVAL_MODE=truth), {label}\n"
    );
    let _ = writeln!(out, "- date: {now}");
    let _ = writeln!(out, "- model: {model}");
    let _ = writeln!(
        out,
        "- cases: {} ({} clear), each in a new session; {} memories seeded, with near misses",
        results.len(),
        results.iter().filter(|(c, _)| c.clear()).count(),
        MEMORIES.len()
    );
    let _ = writeln!(
        out,
        "- a question gets its first option (\"You decide\" when none), or the case's own words\n"
    );

    let _ = writeln!(
        out,
        "| kind | pass | answers inventing | markup / notes shown | ended without an answer |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|");
    let mut groups: Vec<(String, Vec<&(&Case, Outcome)>)> = Vec::new();
    for kind in KINDS {
        let of_kind: Vec<_> = results.iter().filter(|(c, _)| c.kind == kind).collect();
        if !of_kind.is_empty() {
            groups.push((kind.key().into(), of_kind));
        }
        if kind == Kind::General {
            for name in ["general (knowledge)", "general (not in memory)"] {
                let part: Vec<_> = results
                    .iter()
                    .filter(|(c, _)| kind_name(c) == name)
                    .collect();
                if !part.is_empty() {
                    groups.push((format!("– {name}"), part));
                }
            }
        }
    }
    groups.push(("**all**".into(), results.iter().collect()));
    for (name, group) in &groups {
        let pass = group.iter().filter(|(_, o)| o.pass()).count();
        let inventing = group.iter().filter(|(_, o)| !o.invented.is_empty()).count();
        let markup = group.iter().filter(|(_, o)| !o.markup.is_empty()).count();
        let cut = group.iter().filter(|(_, o)| o.end != "answered").count();
        let _ = writeln!(
            out,
            "| {name} | {} | {inventing} | {markup} | {cut} |",
            percent(pass, group.len())
        );
    }

    let all = results.len();
    let pass = results.iter().filter(|(_, o)| o.pass()).count();
    let inventing = results
        .iter()
        .filter(|(_, o)| !o.invented.is_empty())
        .count();
    let tokens: usize = results.iter().map(|(_, o)| o.invented.len()).sum();
    let markup = results.iter().filter(|(_, o)| !o.markup.is_empty()).count();
    let clear: Vec<&Outcome> = results
        .iter()
        .filter(|(c, _)| c.clear())
        .map(|(_, o)| o)
        .collect();
    let asked_clear = clear.iter().filter(|o| !o.questions.is_empty()).count();
    let seconds = Samples::new(clear.iter().map(|o| o.seconds).collect());
    let calls = Samples::new(clear.iter().map(|o| o.tools.len() as f64).collect());
    let all_seconds = Samples::new(results.iter().map(|(_, o)| o.seconds).collect());
    let pass_rate = if all == 0 {
        0.0
    } else {
        pass as f64 / all as f64
    };
    let _ = writeln!(out, "\n| figure | value | target |\n|---|---|---|");
    let _ = writeln!(
        out,
        "| pass | {} | ≥ 95 %: {} |",
        percent(pass, all),
        target(pass_rate >= 0.95)
    );
    let _ = writeln!(
        out,
        "| answers inventing claims about the user's things (tokens) | {inventing} ({tokens}) | 0: {} |",
        target(inventing == 0)
    );
    let _ = writeln!(
        out,
        "| answers showing markup, notes or results said back | {markup} | 0: {} |",
        target(markup == 0)
    );
    let _ = writeln!(
        out,
        "| reply time, clear cases: p50 / p95 / max | {:.1} s / {:.1} s / {:.1} s | p95 ≤ 15 s: {} |",
        seconds.pct(50.0),
        seconds.pct(95.0),
        seconds.max(),
        target(seconds.pct(95.0) <= 15.0)
    );
    let _ = writeln!(
        out,
        "| tool calls, clear cases: p50 / p95 / max | {} / {} / {} | p95 ≤ 2: {} |",
        calls.pct(50.0),
        calls.pct(95.0),
        calls.max(),
        target(calls.pct(95.0) <= 2.0)
    );
    let _ = writeln!(
        out,
        "| clear cases that asked a question | {} | |",
        percent(asked_clear, clear.len())
    );
    let _ = writeln!(
        out,
        "| reply time, all cases: p50 / p95 | {:.1} s / {:.1} s | |",
        all_seconds.pct(50.0),
        all_seconds.pct(95.0)
    );

    let _ = writeln!(
        out,
        "\n## Cases\n\n| # | kind | result | why | tools | questions (answer given) | time | prompt | answer |\n|---|---|---|---|---|---|---|---|---|"
    );
    for (n, (case, outcome)) in results.iter().enumerate() {
        let questions = outcome
            .questions
            .iter()
            .zip(&outcome.given)
            .map(|(q, a)| format!("{q} ({a})"))
            .collect::<Vec<_>>()
            .join(" / ");
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {:.1} s | {} | {} |",
            n + 1,
            kind_name(case),
            if outcome.pass() { "pass" } else { "**fail**" },
            cell(&outcome.why.join("; ")),
            cell(&outcome.tools.join(", ")),
            cell(&questions),
            outcome.seconds,
            cell(case.prompt),
            cell(&outcome.answer),
        );
    }
    out
}
