#pragma once

#include <QString>

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace steward {
class Engine;
}

// How the app shows a descriptor value: its code value, with the short description where that says
// more ("eng — English"), not the URI, which is what is stored and what a tooltip shows. Reads a
// descriptor resource's values once, through the engine on the GUI thread, and forgets them all
// when descriptors change (AppSession).
class DescriptorLabels
{
public:
    struct Value
    {
        std::string uri; // namespace#codeValue, as stored
        QString codeValue;
        QString shortDescription;
        QString label;
    };

    explicit DescriptorLabels(steward::Engine &engine);

    // Every stored value of a descriptor resource, in natural-key order.
    const std::vector<Value> &values(const std::string &project, const std::string &resource);
    // What a steward reads for a descriptor URI: its label when a stored descriptor has it (matched
    // without case, as the engine matches them), else the URI as it is, with stored = false.
    QString label(const std::string &uri, bool *stored = nullptr);
    // The URI that text typed into a field of that descriptor stands for: a label or a code value
    // (without case), or a URI as it is; the text itself when it names no stored value.
    std::string uriFor(const std::string &project, const std::string &resource, const QString &text);
    // A natural key ("255901 / uri://ed-fi.org/GradingPeriodDescriptor#First Six Weeks / 2026") with
    // each descriptor URI in it read as its label.
    QString labelsIn(const std::string &naturalKey);
    // Descriptors were written: read them again when next asked.
    void forget();

private:
    const Value *find(const std::string &uri);

    steward::Engine &m_engine;
    std::map<std::string, std::vector<Value>> m_byResource; // "project|resource"
    std::unordered_map<std::string, const Value *> m_byUri;  // lower-case URI, of the resources read
};

// "Ninth grade" from "uri://ed-fi.org/GradeLevelDescriptor#Ninth grade": what a label is without
// the stored value at hand.
QString descriptorCodeValue(const QString &uri);
