//! Numbers written for people ("1.2 s", "30 min left", a meter's value)
//! without `core::fmt`'s float code.
//!
//! Why: `format!("{:.1}", x)` and `format!("{x}")` on an `f64` compile
//! Rust's float-to-decimal algorithms (Grisu and Dragon, with their
//! tables: about 15 KB of wasm) for a handful of numbers the page shows.
//! [`fixed`] writes exactly what `format!("{:.N}", x)` writes (the binary
//! value rounded half to even; the tests hold the two to it) with integer
//! arithmetic only.

/// `value` with `decimals` digits after the point (at most 3), as
/// `format!("{value:.decimals$}")` writes it. For a whole number below
/// 2^53 with no decimals, that is also what `format!("{value}")` writes.
pub fn fixed(value: f64, decimals: u32) -> String {
    let decimals = decimals.min(3);
    if value.is_nan() {
        return "NaN".into();
    }
    let mut out = String::new();
    if value.is_sign_negative() {
        out.push('-');
    }
    if value.is_infinite() {
        out.push_str("inf");
        return out;
    }
    let bits = value.abs().to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    // value = mantissa · 2^power, exactly.
    let (mantissa, power) = if exponent == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), exponent - 1075)
    };
    if power >= 0 {
        out.push_str(&whole_digits(mantissa, power as u32));
        if decimals > 0 {
            out.push('.');
            out.extend(std::iter::repeat_n('0', decimals as usize));
        }
        return out;
    }
    // value · 10^decimals = scaled · 2^power: its whole part, rounded half
    // to even on what is cut off.
    // (`scaled` < 2^53 · 10^3 < 2^63.)
    let scaled = mantissa * 10u64.pow(decimals);
    let shift = power.unsigned_abs();
    let rounded = if shift > 63 {
        0 // below half of 2^-decimals: rounds to zero
    } else {
        let whole = scaled >> shift;
        let cut = scaled & ((1u64 << shift) - 1);
        let half = 1u64 << (shift - 1);
        if cut > half || (cut == half && whole % 2 == 1) {
            whole + 1
        } else {
            whole
        }
    };
    let digits = rounded.to_string();
    let decimals = decimals as usize;
    if decimals == 0 {
        out.push_str(&digits);
    } else {
        let digits = format!("{digits:0>width$}", width = decimals + 1);
        let (whole, fraction) = digits.split_at(digits.len() - decimals);
        out.push_str(whole);
        out.push('.');
        out.push_str(fraction);
    }
    out
}

/// The decimal digits of `mantissa · 2^power` (a whole number).
fn whole_digits(mantissa: u64, power: u32) -> String {
    if power <= 10 {
        return (mantissa << power).to_string(); // below 2^63
    }
    // Base 10^9 limbs, least significant first, doubled `power` times.
    const LIMB: u64 = 1_000_000_000;
    let mut limbs = vec![
        mantissa % LIMB,
        (mantissa / LIMB) % LIMB,
        mantissa / (LIMB * LIMB),
    ];
    for _ in 0..power {
        let mut carry = 0;
        for limb in &mut limbs {
            let doubled = *limb * 2 + carry;
            *limb = doubled % LIMB;
            carry = doubled / LIMB;
        }
        if carry > 0 {
            limbs.push(carry);
        }
    }
    while limbs.len() > 1 && limbs.last() == Some(&0) {
        limbs.pop();
    }
    let mut digits = String::new();
    for (i, limb) in limbs.iter().rev().enumerate() {
        let limb = limb.to_string();
        if i > 0 {
            digits.extend(std::iter::repeat_n('0', 9 - limb.len()));
        }
        digits.push_str(&limb);
    }
    digits
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agrees(value: f64) {
        for decimals in 0..=3 {
            assert_eq!(
                fixed(value, decimals),
                format!("{value:.prec$}", prec = decimals as usize),
                "{value:e} to {decimals} decimals"
            );
        }
    }

    #[test]
    fn writes_what_format_writes() {
        for value in [
            0.0,
            -0.0,
            0.5,
            1.5,
            2.5,
            10.5,
            11.5,
            0.125,
            0.375,
            1.25,
            1.35,
            1.15,
            0.005,
            0.015,
            0.045,
            -0.5,
            -1.5,
            1.0,
            9.999,
            9.9999,
            99.95,
            0.0001,
            1e-300,
            5e-324,
            1e15,
            1e16,
            1.5e16,
            9007199254740993.0,
            1e21,
            1e300,
            f64::MAX,
            f64::MIN_POSITIVE,
            0.37,
            0.999,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            123456.789,
        ] {
            agrees(value);
        }
    }

    #[test]
    fn writes_what_format_writes_for_many_values() {
        // A fixed pseudo-random walk over the bit patterns (xorshift).
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        for round in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            if round % 20 == 0 {
                agrees(f64::from_bits(state));
            }
            // Values of the range the page writes (milliseconds as seconds,
            // a level from 0 to 1), ties among them.
            agrees((state % 100_000) as f64 / 1000.0);
            agrees((state % 1_000) as f64 / 1000.0);
            agrees((state % 2_000) as f64 / 8.0);
        }
    }

    #[test]
    fn whole_numbers_as_display_writes_them() {
        for value in [0.0, 1.0, 30.0, 89.0, 1e15, 9007199254740991.0, -3.0] {
            assert_eq!(fixed(value, 0), format!("{value}"));
        }
    }
}
