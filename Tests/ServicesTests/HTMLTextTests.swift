import Services
import Testing

@Suite("HTMLText: Flickr's HTML as plain text")
struct HTMLTextTests {
    @Test(arguments: [
        ("On the sofa, after lunch.", "On the sofa, after lunch."),
        ("", ""),
        ("<b>Golden hour</b> at the <i>lake</i>", "Golden hour at the lake"),
        (
            #"See <a href="https://www.flickr.com/groups/explore/" rel="noreferrer nofollow">Explore</a>."#,
            "See Explore."
        ),
        (#"<A HREF="x">Upper</A> <SPAN class='a'>case</SPAN>"#, "Upper case"),
        (#"<a title="a > b" href='c>d'>quoted</a>"#, "quoted"),
        ("<img src=\"x.jpg\" alt=\"\"/>after", "after"),
        ("<br>", ""),
    ])
    func tagsAreRemoved(html: String, text: String) {
        #expect(HTMLText.plainText(html) == text)
    }

    @Test(arguments: [
        ("Tom &amp; Jerry", "Tom & Jerry"),
        ("&quot;quoted&quot;", "\"quoted\""),
        ("&lt;b&gt;not a tag&lt;/b&gt;", "<b>not a tag</b>"),
        ("it&#39;s &apos;fine&apos;", "it's 'fine'"),
        ("a&nbsp;b", "a\u{A0}b"),
        ("caf&#233; caf&#xE9; caf&#XE9;", "café café café"),
        ("&#128077; &#x1F44D;", "👍 👍"),
        ("&#0000065;", "A"),
        ("&mdash; &hellip; &copy; &euro;", "— … © €"),
        ("&amp;amp;", "&amp;"),
    ])
    func entitiesAreDecoded(html: String, text: String) {
        #expect(HTMLText.plainText(html) == text)
    }

    @Test(arguments: [
        ("&#0;", "\u{FFFD}"),
        ("&#xD800;", "\u{FFFD}"),
        ("&#x110000;", "\u{FFFD}"),
        ("&#99999999999999999999;", "\u{FFFD}"),
    ])
    func invalidCodePointsBecomeTheReplacementCharacter(html: String, text: String) {
        #expect(HTMLText.plainText(html) == text)
    }

    @Test(arguments: [
        "AT&T", "a & b", "&unknown;", "&#;", "&#x;", "&#xZZ;", "fish &chips;", "&",
        "1 < 2", "a <3 b", "<", "x <= y", "< b>", "<a href=\"unterminated", "<1>",
    ])
    func textThatIsNotMarkupStays(html: String) {
        #expect(HTMLText.plainText(html) == html)
    }

    /// HTML's 2,231 names, not only the common ones (every one, as Python decodes it: HTMLEntitiesTests).
    @Test(arguments: [
        ("Caf&eacute;", "Café"),
        (
            "Stra&szlig;e &Uuml;ber &agrave; la cr&egrave;me, ni&ntilde;o, &oelig;uvre",
            "Straße Über à la crème, niño, œuvre"
        ),
        ("&Eacute;t&eacute; &ccedil;a", "Été ça"),
        ("&CounterClockwiseContourIntegral; &nbsp;&zwnj;&NewLine;", "\u{2233} \u{A0}\u{200C}"),
        ("&NotEqualTilde;", "\u{2242}\u{338}"),
        ("&EACUTE; &Amp; &eAcute;", "&EACUTE; &Amp; &eAcute;"),
    ])
    func everyNamedReferenceIsDecoded(html: String, text: String) {
        #expect(scalars(HTMLText.plainText(html)) == scalars(text))
    }

    /// The legacy names (106, from before HTML required the `;`) are read without it, the longest that the text
    /// starts with; the others need their `;`.
    @Test(arguments: [
        ("&amp", "&"),
        ("Caf&eacute au lait", "Café au lait"),
        ("&copy 2026 &AMP &lt3", "© 2026 & <3"),
        ("&notit; &notin; &notin", "¬it; \u{2209} ¬in"),
        ("&ampx &eacutex &copyright &centimes;", "&x éx ©right ¢imes;"),
        ("&ampamp; &amp;amp;", "&amp; &amp;"),
        ("&hellip &mdash &euro x", "&hellip &mdash &euro x"),
    ])
    func legacyNamesWithoutTheSemicolon(html: String, text: String) {
        #expect(scalars(HTMLText.plainText(html)) == scalars(text))
    }

    /// Numeric references with and without `;`, and the ranges HTML replaces (Windows-1252 for 0x80...0x9F) or
    /// Python's `html.unescape` drops (controls, noncharacters).
    @Test(arguments: [
        ("a&#12b", "a\u{C}b"),
        ("it&#39s &#x41&#X42", "it's AB"),
        ("&#150; &#x80; &#x9F; &#129;", "\u{2013} \u{20AC} \u{178} \u{81}"),
        ("a&#1;b&#11;c&#x7F;d&#xFDD0;e&#xFFFE;f&#x10FFFF;g", "abcdefg"),
        ("a&#13;b&#9;c&#x10FFFD;", "a\rb\tc\u{10FFFD}"),
        ("&#x0000000041;", "A"),
    ])
    func numericReferences(html: String, text: String) {
        #expect(scalars(HTMLText.plainText(html)) == scalars(text))
    }

    @Test func lineBreaksAndBlocks() {
        #expect(HTMLText.plainText("one<br>two<br/>three<br />four<BR>five") == "one\ntwo\nthree\nfour\nfive")
        #expect(HTMLText.plainText("<p>First.</p><p>Second.</p>") == "First.\nSecond.")
        #expect(HTMLText.plainText("Intro<ul><li>a</li><li>b</li></ul>End") == "Intro\na\nb\nEnd")
        #expect(HTMLText.plainText("Line one\n\nLine two") == "Line one\n\nLine two", "Flickr's own newlines stay")
        #expect(HTMLText.plainText("Shot at f/1.8.<br />\nEdited.") == "Shot at f/1.8.\n\nEdited.")
    }

    @Test func commentsScriptsAndStylesAreDropped() {
        #expect(HTMLText.plainText("a<!-- hidden <b>x</b> -->b") == "ab")
        #expect(HTMLText.plainText("a<!-- never closed") == "a")
        #expect(HTMLText.plainText("a<script>if (1 < 2) { alert('x') }</script>b") == "ab")
        #expect(HTMLText.plainText("a<STYLE type=\"text/css\">p > b { color: red }</style >b") == "ab")
        #expect(HTMLText.plainText("a<script>never closed") == "a")
        #expect(HTMLText.plainText("<!DOCTYPE html><?xml version=\"1.0\"?>text") == "text")
    }

    @Test func whiteSpaceAtTheEndsIsTrimmed() {
        #expect(HTMLText.plainText("  \n<p> padded </p>\n  ") == "padded")
        #expect(HTMLText.plainText("&nbsp;x&nbsp;") == "x")
        #expect(HTMLText.plainText("a  b\tc") == "a  b\tc", "inner white space is kept")
    }

    @Test func nonASCIITextPassesThrough() {
        #expect(
            HTMLText.plainText("Über den Dächern — 東京の夜 <i>(handheld)</i> 🐱") == "Über den Dächern — 東京の夜 (handheld) 🐱")
    }
}

/// The scalars of `text`: compared rather than the strings, which `==` compares up to canonical equivalence
/// (`é` is then `e` and a combining accent).
func scalars(_ text: String) -> [Unicode.Scalar] {
    Array(text.unicodeScalars)
}
