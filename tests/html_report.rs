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
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples")
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

    let findings: Vec<serde_json::Value> = std::fs::read_to_string(&jsonl)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["type"] == "finding")
        .collect();
    assert!(findings.len() > 20, "{}", findings.len());

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
    let findings: Vec<serde_json::Value> = std::fs::read_to_string(&jsonl)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["type"] == "finding")
        .collect();
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
