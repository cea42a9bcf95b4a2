//! Exact money. Amounts are integer minor units inside Brigade and plain decimal
//! numbers in JSON (`12.5` for 12.50). A JSON number is read through its shortest
//! decimal form, so `0.1` is exactly ten cents, never 0.1000000000000000055.

/// Largest amount accepted anywhere, in major units: larger is a typo, not a bill.
pub const MAX_MAJOR: i64 = 10_000_000;

/// Digits after the decimal point of a currency (ISO 4217).
pub fn exponent(currency: &str) -> u32 {
    match currency {
        "JPY" | "KRW" | "VND" | "CLP" | "ISK" | "UGX" | "XAF" | "XOF" | "PYG" => 0,
        "BHD" | "KWD" | "OMR" | "JOD" | "TND" | "IQD" | "LYD" => 3,
        _ => 2,
    }
}

fn scale(exponent: u32) -> i64 {
    10_i64.pow(exponent)
}

/// Converts a JSON amount to minor units, refusing fractions finer than the
/// currency has, negative values and absurd sizes.
pub fn to_minor(value: f64, exponent: u32) -> Result<i64, String> {
    if !value.is_finite() {
        return Err("must be a finite number".into());
    }
    if value < 0.0 {
        return Err("must not be negative".into());
    }
    if value > MAX_MAJOR as f64 {
        return Err(format!("must not exceed {MAX_MAJOR}"));
    }
    // Rust prints the shortest decimal that round-trips, and never in exponent form.
    let text = format!("{value}");
    let (whole, fraction) = text.split_once('.').unwrap_or((&text, ""));
    if fraction.len() > exponent as usize {
        return Err(format!("must have at most {exponent} decimal places"));
    }
    let whole: i64 = whole
        .parse()
        .map_err(|_| "is not a valid amount".to_string())?;
    let padded = format!("{fraction:0<width$}", width = exponent as usize);
    let fraction: i64 = if padded.is_empty() {
        0
    } else {
        padded
            .parse()
            .map_err(|_| "is not a valid amount".to_string())?
    };
    Ok(whole * scale(exponent) + fraction)
}

/// The JSON number for an amount in minor units. Division of two exact integers
/// rounds to the nearest double, whose shortest form is the exact decimal.
pub fn to_json(minor: i64, exponent: u32) -> f64 {
    minor as f64 / scale(exponent) as f64
}

/// `amount × rate / 100_000` rounded half away from zero, where `rate` is in
/// thousandths of a percent (7.5 % = 7500). Used for tax.
pub fn percentage(amount: i64, rate: i64) -> i64 {
    let product = amount as i128 * rate as i128;
    let divisor = 100_000_i128;
    let quotient = product / divisor;
    let remainder = product % divisor;
    let rounded = if remainder.abs() * 2 >= divisor {
        quotient + product.signum()
    } else {
        quotient
    };
    rounded as i64
}

/// A percentage from JSON (such as 7.5) in thousandths of a percent.
pub fn rate_from_json(value: f64) -> Result<i64, String> {
    if !(0.0..=100.0).contains(&value) {
        return Err("must be a percentage between 0 and 100".into());
    }
    to_minor(value, 3)
}

pub fn rate_to_json(rate: i64) -> f64 {
    to_json(rate, 3)
}

/// `amount` shared in proportion to `weights`: each part's exact share rounded
/// down, then the cents left over to the largest remainders (the first on a tie).
pub fn share(amount: i64, weights: &[i64]) -> Vec<i64> {
    let whole: i64 = weights.iter().sum();
    if whole == 0 {
        return vec![0; weights.len()];
    }
    let exact: Vec<(i64, i64)> = weights
        .iter()
        .map(|w| {
            let product = amount as i128 * *w as i128;
            (
                (product / whole as i128) as i64,
                (product % whole as i128) as i64,
            )
        })
        .collect();
    let mut shares: Vec<i64> = exact.iter().map(|(floor, _)| *floor).collect();
    let mut left = amount - shares.iter().sum::<i64>();
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(exact[i].1));
    for i in order {
        if left == 0 {
            break;
        }
        shares[i] += 1;
        left -= 1;
    }
    shares
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_decimals_exactly() {
        assert_eq!(to_minor(0.1, 2), Ok(10));
        assert_eq!(to_minor(12.5, 2), Ok(1250));
        assert_eq!(to_minor(19.99, 2), Ok(1999));
        assert_eq!(to_minor(3.0, 0), Ok(3));
        assert_eq!(to_minor(1.234, 3), Ok(1234));
        assert!(to_minor(0.001, 2).is_err());
        assert!(to_minor(-1.0, 2).is_err());
        assert!(to_minor(f64::NAN, 2).is_err());
        assert!(to_minor(1e12, 2).is_err());
    }

    #[test]
    fn writes_decimals_exactly() {
        assert_eq!(to_json(30, 2).to_string(), "0.3");
        assert_eq!(to_json(1250, 2).to_string(), "12.5");
        assert_eq!(to_json(123456789, 2).to_string(), "1234567.89");
    }

    #[test]
    fn rounds_tax_half_up() {
        assert_eq!(percentage(30, 7500), 2); // 2.25 -> 2
        assert_eq!(percentage(10, 7500), 1); // 0.75 -> 1
        assert_eq!(percentage(100, 12500), 13); // 12.5 -> 13
        assert_eq!(rate_from_json(8.875), Ok(8875));
    }
}
