#include "Json.h"
#include "JsonDiff.h"
#include "JsonPath.h"
#include "TestSupport.h"

#include <QTest>

#include <cmath>
#include <functional>
#include <limits>
#include <optional>

using namespace steward;

class TestJson : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void diffNamesEveryFieldThatChanged()
    {
        const Json before = Json::parse(R"({"name":"Alpha","id":7,"addresses":[{"city":"Austin"},{"city":"Waco"}],)"
                                        R"("old":true,"kind":{"code":"A"}})");
        const Json after = Json::parse(R"({"name":"Beta","id":7,"addresses":[{"city":"Dallas"}],"web":"x",)"
                                       R"("kind":"A"})");
        std::vector<std::string> lines;
        for (const FieldChange &change : diffJson(before, after))
            lines.push_back(std::string(change.kind == FieldChange::Kind::Added     ? "+"
                                        : change.kind == FieldChange::Kind::Removed ? "-"
                                                                                    : "~")
                            + change.path + " " + change.before.dump() + " " + change.after.dump());
        const std::vector<std::string> expected{
            "~$.addresses[0].city \"Austin\" \"Dallas\"",
            "-$.addresses[1] {\"city\":\"Waco\"} null",
            "~$.kind {\"code\":\"A\"} \"A\"",
            "~$.name \"Alpha\" \"Beta\"",
            "-$.old true null",
            "+$.web null \"x\"",
        };
        QCOMPARE(lines, expected);
        QVERIFY(diffJson(before, before).empty());
    }

    // The natural-key index calls the quick way; it must give what the document's walk gives.
    void naturalKeyOfTextAgreesWithTheDocument()
    {
        const std::vector<std::string> texts = {
            "{\"schoolId\":255901}",
            "{\"codeValue\":\"Math\",\"namespace\":\"uri://ed-fi.org/AcademicSubjectDescriptor\"}",
            "{\"codeValue\":\"\",\"namespace\":\"\"}",
            "{\"codeValue\":[\"a\"],\"namespace\":\"b\"}",
            "{\"codeValue\":\"a\",\"namespace\":\"b\",\"x\":1}",
            "{\"namespace\":\"b\",\"codeValue\":\"a\"}",
            "{\"courseCode\":\"ALG-1\",\"educationOrganizationReference\":{\"educationOrganizationId\":1}}",
            "{\"a\":1.5,\"b\":1e2,\"c\":-0.0,\"d\":true,\"e\":null,\"f\":-7,\"g\":18446744073709551615}",
            "{\"a\":1,\"a\":2}",
            "{\"\":1,\"\":2}",
            "{\"a\":[1,\"x\",{\"b\":[]},{}],\"b\":{}}",
            "[1,\"x\"]",
            "\"bare\"",
            "5",
            "{\"a\":\"\\u00e9\\ud83d\\ude00 / #\"}",
            "{\"a\":",
            "{\"a\":\"\xff\"}",
            "",
        };
        for (const std::string &text : texts) {
            JsonParseResult parsed = parseJson(text);
            const std::string expected = parsed.value ? naturalKeyText(*parsed.value) : std::string();
            QCOMPARE(naturalKeyOfIdentityText(text), expected);
        }
        QCOMPARE(naturalKeyOfIdentityText("{\"codeValue\":\"Math\",\"namespace\":\"uri://x\"}"), std::string("uri://x#Math"));
        QCOMPARE(naturalKeyOfIdentityText("{\"b\":{\"c\":2},\"a\":1}"), std::string("1 / 2"));
    }

    void depthLimit()
    {
        auto nested = [](int depth) { return std::string(depth, '[') + std::string(depth, ']'); };
        QVERIFY(parseJson(nested(128)).value.has_value());
        JsonParseResult tooDeep = parseJson(nested(129));
        QVERIFY(!tooDeep.value);
        QVERIFY(tooDeep.error.find("deeper than 128") != std::string::npos);
        // A very deep input fails cleanly instead of exhausting the stack.
        QVERIFY(!parseJson(nested(100000)).value);
        // Brackets inside strings (escaped quotes too) neither count nor hide real nesting.
        const std::string brackets(300, '[');
        QVERIFY(parseJson("[\"" + brackets + "\", \"\\\"" + brackets + "\"]").value.has_value());
        const std::string closers = "\"\\\"" + std::string(10, ']') + "\"";
        QVERIFY(parseJson("[" + closers + "," + nested(127) + "]").value.has_value());
        JsonParseResult hidden = parseJson("[" + closers + "," + nested(128) + "]");
        QVERIFY(!hidden.value);
        QVERIFY2(hidden.error.find("deeper than 128") != std::string::npos, hidden.error.c_str());
        // Around the depth simdjson reads to (deeper goes nlohmann's checked way), and the limits a
        // caller sets below it: the same values, and the same refusals.
        for (int depth : {1, 2, 63, 64, 65, 66, 127}) {
            const JsonParseResult read = parseJson("{\"a\":" + nested(depth) + "}");
            QVERIFY2(read.value && *read.value == Json::parse("{\"a\":" + nested(depth) + "}"), read.error.c_str());
        }
        // Past 64 KB too (read by a parser of its own): the same limit, the same words.
        const std::string padding(70 * 1024, ' ');
        QVERIFY(parseJson(nested(128) + padding).value.has_value());
        JsonParseResult tooDeepAndLarge = parseJson(nested(129) + padding);
        QVERIFY2(tooDeepAndLarge.error.find("deeper than 128") != std::string::npos, tooDeepAndLarge.error.c_str());
        QVERIFY(parseJson(nested(10), JsonParseLimits{1024, 10}).value);
        JsonParseResult overLimit = parseJson(nested(11), JsonParseLimits{1024, 10});
        QVERIFY2(overLimit.error.find("deeper than 10") != std::string::npos, overLimit.error.c_str());
    }
    void sizeLimit()
    {
        JsonParseLimits limits;
        limits.maxBytes = 10;
        QVERIFY(!parseJson("[1,2,3,4,5,6]", limits).value);
        QVERIFY(parseJson("[1,2]", limits).value);
    }
    void invalidUtf8()
    {
        JsonParseResult r = parseJson(std::string("{\"a\":\"\xff\xfe\"}"));
        QVERIFY(!r.value);
        QVERIFY(r.error.find("UTF-8") != std::string::npos || r.error.find("utf") != std::string::npos
                || r.error.find("invalid") != std::string::npos);
        QVERIFY(parseJson("{\"a\":\"caf\xc3\xa9\"}").value);
        const std::string large = "[\"" + std::string(70 * 1024, 'x') + "\",\"\xff\"]";
        QVERIFY(!parseJson(large).value);
        QVERIFY(!parseJson(large).error.empty());
    }
    void numberOverflowAndLoneSurrogates()
    {
        // A number beyond a double threw out_of_range past parseJson (found by fuzz_validator).
        JsonParseResult overflow = parseJson("[1e999]");
        QVERIFY(!overflow.value);
        QVERIFY2(overflow.error.find("number overflow") != std::string::npos, overflow.error.c_str());
        QVERIFY(overflow.error.find("[json.exception") == std::string::npos);
        for (const char *text : {R"(["\ud800"])", R"(["\udc00"])", R"(["\ud800x"])", R"(["\ud800\u0041"])"}) {
            JsonParseResult lone = parseJson(text);
            QVERIFY2(!lone.value, text);
            QVERIFY2(lone.error.find("surrogate") != std::string::npos, lone.error.c_str());
        }
        QCOMPARE(parseJson(R"(["\ud83d\ude00"])").value->at(0).get<std::string>(), std::string("\xf0\x9f\x98\x80"));
    }
    void readsEveryTextAsNlohmannDoes()
    {
        // parseJson reads with simdjson and again with nlohmann whatever simdjson refuses: the values,
        // their number kinds and what is refused must be nlohmann's own.
        const std::vector<std::string> texts = {
            "{\"b\":[1,-2,3.5,-0.0,1e2,2.5e-324,true,false,null],\"a\":{\"x\":\"y\"}}",
            "18446744073709551615", "9223372036854775808", "-9223372036854775808", "100000000000000000000",
            "-9223372036854775809", "123456789012345678", "0", "1.0", " 5 ", "{\"a\":1,\"a\":2}",
            "\"\\u0000x\\/\\ud83d\\ude00\"", "\xef\xbb\xbf{}", std::string("{}\0", 3), "[1,]", "[01]", "[1.]",
            "[.5]", "[+1]", "[NaN]", "[tru]", "\"a\tb\"", "\"\\ud800\"", "\"\xff\"", "{} x", "", "   ",
            "[\"\x7f\"]", "{\"k\":{\"k\":[[[]]]}}", "1e999", "[-]"};
        std::function<bool(const Json &, const Json &)> sameKinds = [&](const Json &a, const Json &b) {
            if (a.type() != b.type() || a.size() != b.size())
                return false;
            if (a.is_object())
                for (auto it = a.begin(), other = b.begin(); it != a.end(); ++it, ++other)
                    if (it.key() != other.key() || !sameKinds(*it, *other))
                        return false;
            if (a.is_array())
                for (std::size_t i = 0; i < a.size(); ++i)
                    if (!sameKinds(a[i], b[i]))
                        return false;
            return true;
        };
        // Each again past 64 KB (trailing spaces), which simdjson reads with a parser of its own.
        std::vector<std::string> all = texts;
        for (const std::string &text : texts)
            all.push_back(text + std::string(70 * 1024, ' '));
        for (const std::string &text : all) {
            const JsonParseResult ours = parseJson(text);
            std::optional<Json> theirs;
            try {
                theirs = Json::parse(text);
            } catch (const Json::exception &) {
            }
            QVERIFY2(ours.value.has_value() == theirs.has_value(), text.c_str());
            if (theirs) {
                QCOMPARE(ours.value->dump(), theirs->dump());
                QVERIFY2(sameKinds(*ours.value, *theirs), text.c_str());
            } else {
                QVERIFY2(!ours.error.empty(), text.c_str());
            }
        }
        // The one difference: "-0", an integer zero to nlohmann and an unsigned one here, alike in
        // value and text.
        QCOMPARE(parseJson("-0").value->dump(), std::string("0"));
        QVERIFY(*parseJson("-0").value == Json::parse("-0"));
    }
    void errorsAreValidUtf8()
    {
        // The message quotes the bytes last read; invalid ones made the import report's dump() throw.
        JsonParseResult r = parseJson(std::string("{\"a\":\"\xc3\x28\"}"));
        QVERIFY(!r.value);
        QVERIFY_THROWS_NO_EXCEPTION((void)Json(r.error).dump());
    }
    void dumpNeverThrows()
    {
        Json j = std::string("\xff");
        QVERIFY(!dumpJson(j).empty());
    }
    void writesEveryValueAsNlohmannDoes()
    {
        // dumpJson writes stored texts itself; they must stay nlohmann's (etags and stored bodies
        // made before compare with them), invalid UTF-8 and every number kind included.
        std::string controls;
        for (int c = 0; c < 0x20; ++c)
            controls += static_cast<char>(c);
        const std::vector<std::string> strings = {"",
                                                  "plain",
                                                  controls,
                                                  "\"quoted\" \\ back\x7f",
                                                  "caf\xc3\xa9 \xf0\x9f\x98\x80",
                                                  "\xff",
                                                  "a\x80" "b",
                                                  "\xc3",
                                                  "\xc0\xaf",
                                                  "\xed\xa0\x80",
                                                  "\xf4\x90\x80\x80",
                                                  "ok\xe2\x82",
                                                  std::string("nul\0in", 6)};
        Json values = Json::array();
        for (const std::string &text : strings) {
            values.push_back(text);
            values.push_back(Json::object({{text, text}}));
        }
        for (const Json &number :
             {Json(0), Json(-1), Json(std::numeric_limits<std::int64_t>::min()),
              Json(std::numeric_limits<std::uint64_t>::max()), Json(1.0), Json(-0.0), Json(0.1), Json(1e300),
              Json(2.5e-324), Json(std::numeric_limits<double>::infinity()), Json(std::nan(""))})
            values.push_back(number);
        values.push_back(Json::object());
        values.push_back(Json::array());
        values.push_back(
            Json::object({{"b", Json::array({true, false, nullptr})}, {"a", Json::object({{"c", 1}})}}));
        values.push_back(Json::binary({1, 2, 3}));
        for (const Json &value : values)
            QCOMPARE(dumpJson(value), value.dump(-1, ' ', false, Json::error_handler_t::replace));
        QCOMPARE(dumpJson(values), values.dump(-1, ' ', false, Json::error_handler_t::replace));
    }
    void paths()
    {
        const Json doc = Json::parse(R"({"a":{"b":[{"c":1},{"c":2},{"d":3}]}})");
        JsonPath path("$.a.b[*].c");
        auto matches = path.select(doc);
        QCOMPARE(matches.size(), std::size_t(2));
        QCOMPARE(matches[1].concretePath, std::string("$.a.b[1].c"));
        JSON_COMPARE(*matches[1].value, Json(2));
        QCOMPARE(path.resolve(doc, {0})->get<int>(), 1);
        QVERIFY(path.resolve(doc, {2}) == nullptr);
        Json copy = doc;
        QVERIFY(path.assign(copy, {2}, 9));
        QCOMPARE(copy["a"]["b"][2]["c"].get<int>(), 9);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, JsonPath("a.b"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, JsonPath("$..b"));
    }
};

QTEST_GUILESS_MAIN(TestJson)
#include "tst_json.moc"
