#pragma once

#include "ApiSchema.h"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace steward {

// The order in which resources can be loaded so that everything a document references is
// already there, the way Ed-Fi computes it: a graph of every resource's references (an abstract
// target such as EducationOrganization stands for its subclasses), cycles broken only at optional
// references, layered so each resource comes after everything it references.
class LoadOrder
{
public:
    explicit LoadOrder(const Model &model);

    // Layer 0 holds resources that reference nothing; layer k references only layers < k.
    const std::vector<std::vector<const ResourceSchema *>> &layers() const { return m_layers; }
    std::vector<const ResourceSchema *> flat() const;
    int layerOf(const ResourceSchema *resource) const;
    // Position in flat(); resources not in the model get a rank past the end.
    int rankOf(const ResourceSchema *resource) const;
    // Whether the order of two resources' documents can change an outcome: one references the
    // other (any reference, broken or not), or both share a superclass identity. Documents of
    // independent resources can be applied in either order with the same result.
    bool dependent(const ResourceSchema *a, const ResourceSchema *b) const;
    // References dropped to break cycles: "Resource.referenceName".
    const std::vector<std::string> &brokenEdges() const { return m_broken; }

private:
    std::vector<std::vector<const ResourceSchema *>> m_layers;
    std::map<const ResourceSchema *, int> m_layerOf;
    std::map<const ResourceSchema *, int> m_rank;
    std::vector<std::string> m_broken;
    std::set<std::pair<const ResourceSchema *, const ResourceSchema *>> m_references; // from, to
};

} // namespace steward
