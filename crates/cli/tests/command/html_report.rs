//! `--report-format html` in a real browser: headless Chromium (Debian's `chromium`) loads
//! the page of an audit of the bundled samples, and the DOM it builds is checked against the
//! JSON Lines report of the same run: the totals, the rows of the table, the filter, and no
//! console message (the script ran to its end, nothing was refused by the page's policy).
//! Markup in an input's name must reach the page as text. Skipped, with a message, when no
//! Chromium is installed (`.ci/run` installs it).

use std::path::{Path, PathBuf};
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;

fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            let out = Command::new("which").arg(name).output().ok()?;
            let path = String::from_utf8(out.stdout).ok()?;
            let path = path.trim();
            (out.status.success() && !path.is_empty()).then(|| PathBuf::from(path))
        })
}

/// The DOM after the page's scripts ran, and what Chromium logged on standard error.
fn dump_dom(browser: &Path, url: &str) -> (String, String) {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--dump-dom")
        .arg(url)
        .output()
        .expect("chromium runs");
    assert!(out.status.success(), "chromium failed: {out:?}");
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Console messages (errors, refusals by the Content-Security-Policy) in Chromium's log.
fn console_lines(log: &str) -> Vec<&str> {
    log.lines().filter(|l| l.contains(":CONSOLE")).collect()
}

fn samples() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("samples")
}

/// Audits `inputs` with the samples' protected list into `report` in `format`.
fn audit(dir: &Path, format: &str, report: &Path, inputs: &[PathBuf]) {
    let status = Command::cargo_bin("idnscope")
        .unwrap()
        .current_dir(dir)
        .args(["audit", "--report-format", format, "--report"])
        .arg(report)
        .arg("--protect")
        .arg(samples().join("protect.txt"))
        .args(inputs)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(1), "the samples hold findings");
}

/// The findings of the JSON Lines report at `path`.
fn findings_in(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["type"] == "finding")
        .collect()
}

#[test]
fn the_console_check_sees_a_script_error() {
    let Some(browser) = chromium() else {
        eprintln!("skipped: no chromium (apt-get install chromium)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("broken.html");
    std::fs::write(
        &page,
        "<!DOCTYPE html><html><body><script>noSuchFunction();</script></body></html>",
    )
    .unwrap();
    let (_, log) = dump_dom(&browser, &format!("file://{}", page.display()));
    assert_eq!(console_lines(&log).len(), 1, "{log}");
}

#[test]
fn the_page_of_an_audit_holds_every_finding_and_loads_cleanly() {
    let Some(browser) = chromium() else {
        eprintln!("skipped: no chromium (apt-get install chromium)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // An input whose name is markup: it must be shown, not obeyed.
    let hostile = dir
        .path()
        .join("<img src=x onerror=document.title='pwned'>.log");
    std::fs::copy(samples().join("queries.log"), &hostile).unwrap();
    let inputs = [hostile, samples().join("example.zone")];
    let html = dir.path().join("audit.html");
    let jsonl = dir.path().join("audit.jsonl");
    audit(dir.path(), "html", &html, &inputs);
    audit(dir.path(), "jsonl", &jsonl, &inputs);

    let findings = findings_in(&jsonl);
    assert!(findings.len() > 15, "{}", findings.len());

    let url = format!("file://{}", html.display());
    let (dom, log) = dump_dom(&browser, &url);
    assert_eq!(console_lines(&log), Vec::<&str>::new(), "console messages");
    assert!(
        dom.contains("data-ready=\"1\""),
        "the script did not finish"
    );
    assert!(
        dom.contains("<title>idnscope report</title>"),
        "title changed"
    );
    assert!(!dom.contains("<img"), "markup from a file name was obeyed");
    assert!(dom.contains("&lt;img src=x onerror=document.title='pwned'&gt;.log"));

    let rows = dom.matches("<tr class=\"finding\"").count();
    assert_eq!(rows, findings.len());
    let total = |id: &str| -> u64 {
        let at = dom.find(&format!("id=\"{id}\">")).expect(id) + id.len() + 6;
        let text: String = dom[at..]
            .chars()
            .take_while(|&c| c != '<')
            .filter(char::is_ascii_digit)
            .collect();
        text.parse().unwrap()
    };
    assert_eq!(total("total-findings"), findings.len() as u64);
    for kind in ["invalid-ace", "legacy-race", "homograph", "encode-error"] {
        let expected = findings.iter().filter(|f| f["kind"] == kind).count() as u64;
        assert_eq!(total(&format!("total-{kind}")), expected, "{kind}");
        let in_rows = dom.matches(&format!("data-kind=\"{kind}\"")).count() as u64;
        assert_eq!(in_rows, expected, "{kind} rows");
    }
    // The chart of imitated domains has a bar per target, with its count.
    let targets: std::collections::BTreeSet<&str> = findings
        .iter()
        .filter_map(|f| f["target"].as_str())
        .collect();
    assert!(targets.len() >= 4, "{targets:?}");
    let chart = &dom[dom.find("id=\"chart-targets\"").unwrap()..];
    let chart = &chart[..chart.find("</figure>").unwrap()];
    for target in &targets {
        let n = findings.iter().filter(|f| f["target"] == *target).count();
        assert!(
            chart.contains(&format!("<title>{target}: {n}</title>")),
            "{target}"
        );
    }

    // The filter in the address keeps the rows that hold the text anywhere.
    let (dom, log) = dump_dom(&browser, &format!("{url}#q=paypal"));
    assert_eq!(console_lines(&log), Vec::<&str>::new());
    let shown = dom
        .split("<tr class=\"finding\"")
        .skip(1)
        .filter(|row| !row[..row.find('>').unwrap()].contains("hidden"))
        .count();
    let expected = findings
        .iter()
        .filter(|f| {
            [
                "file", "reason", "check", "label", "unicode", "target", "message", "name",
            ]
            .iter()
            .any(|k| {
                f[k].as_str()
                    .is_some_and(|v| v.to_lowercase().contains("paypal"))
            })
        })
        .count();
    assert!(expected > 0);
    assert_eq!(shown, expected);
    assert!(dom.contains(&format!("<span id=\"shown\">{expected}</span>")));
}

/// The bidirectional formatting characters (Unicode's Bidi_Control property, PropList.txt).
const BIDI_CONTROLS: [char; 12] = [
    '\u{061C}', '\u{200E}', '\u{200F}', '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}',
    '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}',
];

#[test]
fn bidi_controls_in_a_file_name_are_shown_and_reorder_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let name: String = BIDI_CONTROLS.iter().map(|c| format!("{c}x")).collect();
    let input = dir.path().join(format!("{name}.log"));
    std::fs::copy(samples().join("queries.log"), &input).unwrap();
    let html = dir.path().join("audit.html");
    audit(dir.path(), "html", &html, std::slice::from_ref(&input));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(!page.contains(BIDI_CONTROLS), "a bidi control in the page");
    let shown: String = BIDI_CONTROLS
        .iter()
        .map(|&c| format!("\\u{{{:x}}}x", u32::from(c)))
        .collect();
    // In every row, and in the list of inputs.
    let rows = page.matches("<tr class=\"finding\"").count();
    assert!(rows > 5);
    assert!(
        page.matches(&format!("{shown}.log")).count() > rows,
        "{page}"
    );
}

#[test]
fn a_filter_in_the_address_that_is_not_percent_encoding_is_taken_as_it_is() {
    let Some(browser) = chromium() else {
        eprintln!("skipped: no chromium (apt-get install chromium)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // Rows whose file name holds the text of the filter, and rows whose does not.
    std::fs::copy(samples().join("queries.log"), dir.path().join("100%.log")).unwrap();
    std::fs::copy(samples().join("queries.log"), dir.path().join("other.log")).unwrap();
    let inputs = [dir.path().join("100%.log"), dir.path().join("other.log")];
    let html = dir.path().join("audit.html");
    audit(dir.path(), "html", &html, &inputs);
    let url = format!("file://{}", html.display());
    let (whole, _) = dump_dom(&browser, &url);
    let rows = whole.matches("<tr class=\"finding\"").count();
    assert!(rows > 10 && rows % 2 == 0, "{rows}");
    // `%` alone, `%` before a non-hex digit, and an escape cut short: none is a valid
    // escape, so the text itself is the filter; a valid escape is still decoded.
    for (fragment, shown) in [
        ("100%", rows / 2),
        ("100%.log", rows / 2),
        ("%zz", 0),
        ("%E2%82", 0),
        ("100%25.l", rows / 2),
    ] {
        let (dom, log) = dump_dom(&browser, &format!("{url}#q={fragment}"));
        assert_eq!(console_lines(&log), Vec::<&str>::new(), "#q={fragment}");
        assert!(dom.contains("data-ready=\"1\""), "#q={fragment}");
        assert!(
            dom.contains(&format!("<span id=\"shown\">{shown}</span>")),
            "#q={fragment}: {shown} rows expected"
        );
    }
}

#[test]
fn the_page_of_many_long_look_alikes_is_bounded_and_says_what_it_left_out() {
    use idnscope::html_report::{CELL_CHARS, MAX_MARKS, MAX_ROWS, TABLE_BYTES};
    let dir = tempfile::tempdir().unwrap();
    // 12,000 names of three 60-letter labels, Latin and Cyrillic letters alternating:
    // several findings each, every one with a long Unicode form, half of it non-ASCII.
    let label: String = (0..60)
        .map(|i| if i % 2 == 0 { 'a' } else { 'а' })
        .collect();
    let mut names = String::new();
    for i in 0..12_000 {
        names.push_str(&format!("{label}.{label}.{label}{i}.com\n"));
    }
    let input = dir.path().join("names.txt");
    std::fs::write(&input, names).unwrap();
    let html = dir.path().join("audit.html");
    let jsonl = dir.path().join("audit.jsonl");
    audit(dir.path(), "html", &html, std::slice::from_ref(&input));
    audit(dir.path(), "jsonl", &jsonl, std::slice::from_ref(&input));
    let findings = findings_in(&jsonl);
    assert!(findings.len() > MAX_ROWS, "{}", findings.len());

    let page = std::fs::read_to_string(&html).unwrap();
    let table = &page[page.find("<tbody>").unwrap()..page.find("</tbody>").unwrap()];
    assert!(table.len() <= TABLE_BYTES, "{} bytes of table", table.len());
    // The rest of the page is the head, the figures and charts: small whatever the input.
    assert!(page.len() - table.len() < 500_000, "{} bytes", page.len());
    let rows = table.matches("<tr class=\"finding\"").count();
    assert!(rows > 1_000 && rows <= MAX_ROWS, "{rows}");
    let marks = table.matches("<mark ").count();
    assert_eq!(marks, MAX_MARKS);

    // The notes say how many findings and marks were left out, counted from the JSON Lines
    // report of the same run: the listed rows are its first findings.
    let group = |n: usize| -> String {
        let digits = n.to_string();
        let mut out = String::new();
        for (i, d) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push('\u{2009}');
            }
            out.push(d);
        }
        out
    };
    assert!(
        page.contains(&format!(
            "The table lists the first {} of {} findings",
            group(rows),
            group(findings.len())
        )),
        "no note of the rows left out"
    );
    let non_ascii: usize = findings[..rows]
        .iter()
        .map(|f| {
            let unicode = f["unicode"].as_str().unwrap_or("");
            unicode
                .chars()
                .take(CELL_CHARS)
                .filter(|c| !c.is_ascii())
                .count()
        })
        .sum();
    assert!(
        page.contains(&format!(
            "The first {} non-ASCII characters of the unicode column are marked with their \
             code points; the other {} are shown without a mark.",
            group(marks),
            group(non_ascii - marks)
        )),
        "no note of the marks left out"
    );

    let Some(browser) = chromium() else {
        eprintln!("the page was not loaded: no chromium (apt-get install chromium)");
        return;
    };
    let (dom, log) = dump_dom(&browser, &format!("file://{}", html.display()));
    assert_eq!(console_lines(&log), Vec::<&str>::new());
    assert!(dom.contains("data-ready=\"1\""));
    assert!(dom.contains(&format!("<span id=\"shown\">{rows}</span>")));
}

#[test]
fn the_page_of_a_small_log_that_starts_like_a_zone_has_its_charts() {
    // Query-log lines that start like zone records (`NAME IN A`), with a look-alike of
    // apple.com (xn--80ak6aa92e is Cyrillic аррӏе) and a broken ACE label.
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("small.log");
    std::fs::write(
        &log,
        "query: xn--80ak6aa92e.com IN A\n\
         query: xn--bcher-kva.example IN A\n\
         query: xn--zzzzzzzzz.example IN A\n",
    )
    .unwrap();
    let html = dir.path().join("audit.html");
    let jsonl = dir.path().join("audit.jsonl");
    audit(dir.path(), "html", &html, std::slice::from_ref(&log));
    audit(dir.path(), "jsonl", &jsonl, &[log]);
    let findings = findings_in(&jsonl);
    let apple = findings
        .iter()
        .filter(|f| f["target"] == "apple.com")
        .count();
    assert!(apple > 0, "{findings:?}");
    let page = std::fs::read_to_string(&html).unwrap();
    let chart = &page[page.find("id=\"chart-targets\"").expect("chart of targets")..];
    let chart = &chart[..chart.find("</figure>").unwrap()];
    assert!(chart.contains("<svg"), "{chart}");
    assert!(
        chart.contains(&format!("<title>apple.com: {apple}</title>")),
        "{chart}"
    );
}

/// The page of a grouped audit of a log with times and clients: the domains reached in a
/// table, the findings over time and the clients that asked as charts whose counts are
/// those of the JSON Lines report, and it loads cleanly in Chromium, which draws it.
#[test]
fn the_page_of_a_grouped_audit_shows_domains_times_and_clients() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("dns.json");
    let mut text = String::new();
    for i in 0..300u64 {
        let name = [
            "xn--80ak6aa92e.com",
            "www.xn--80ak6aa92e.com",
            "xn--pypal-4ve.com",
        ][(i % 3) as usize];
        text.push_str(&format!(
            "{{\"ts\":{}.5,\"uid\":\"C{i}\",\"id.orig_h\":\"192.0.2.{}\",\"query\":\"{name}\"}}\n",
            1_795_280_531 + i * 37,
            1 + i % 7
        ));
    }
    std::fs::write(&log, text).unwrap();
    let html = dir.path().join("groups.html");
    let jsonl = dir.path().join("findings.jsonl");
    let run = |format: &str, report: &Path, group: bool| {
        let mut command = Command::cargo_bin("idnscope").unwrap();
        command
            .args(["audit", "--report-format", format, "--report"])
            .arg(report);
        if group {
            command.args(["--group-by", "domain"]);
        }
        let status = command.arg(&log).status().unwrap();
        assert_eq!(status.code(), Some(1));
    };
    run("html", &html, true);
    run("jsonl", &jsonl, false);
    let findings = findings_in(&jsonl);
    let page = std::fs::read_to_string(&html).unwrap();
    let figure = |id: &str| -> String {
        let at = page
            .find(&format!("id=\"{id}\""))
            .unwrap_or_else(|| panic!("no {id}"));
        let rest = &page[at..];
        rest[..rest.find("</figure>").unwrap()].to_owned()
    };
    // Every finding has a time: the columns of the timeline add up to all of them.
    let timeline = figure("chart-time");
    let counted: u64 = timeline
        .split("<title>from ")
        .skip(1)
        .map(|t| {
            let t = &t[t.find(": ").unwrap() + 2..];
            t[..t.find(" findings").unwrap()]
                .replace(',', "")
                .parse::<u64>()
                .unwrap()
        })
        .sum();
    assert_eq!(counted, findings.len() as u64, "{timeline}");
    // The clients' bars say what the findings' clients say.
    let clients = figure("chart-clients");
    let mut per_client = std::collections::BTreeMap::<String, u64>::new();
    for f in &findings {
        *per_client
            .entry(f["client"].as_str().unwrap().to_owned())
            .or_default() += 1;
    }
    for (client, count) in &per_client {
        assert!(
            clients.contains(&format!("<title>{client}: {count}</title>")),
            "{clients}"
        );
    }
    // The domains reached, in a table before the findings.
    assert!(
        page.contains("<bdi>аррӏе.com</bdi>"),
        "the domain in Unicode"
    );
    let Some(browser) = chromium() else {
        eprintln!("skipped: no chromium");
        return;
    };
    let (dom, log) = dump_dom(&browser, &format!("file://{}", html.display()));
    assert!(console_lines(&log).is_empty(), "{log}");
    assert!(dom.contains("id=\"groups\""));
    let shot = dir.path().join("groups.png");
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(&browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg("--window-size=1280,2000")
        .arg(format!("file://{}", html.display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let png = std::fs::read(&shot).unwrap();
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "{}",
        png.len()
    );
}
