#include "LoadOrder.h"

#include <algorithm>
#include <functional>
#include <set>

namespace steward {

namespace {

struct Edge
{
    const ResourceSchema *target;
    bool required;
    std::string name;
};

// A reference is required when its object is a required top-level property (references inside
// arrays or optional objects may be left out, so a cycle can be broken there).
bool isRequiredReference(const ResourceSchema &resource, const ReferenceMapping &reference)
{
    if (reference.isRequired)
        return true;
    const auto &steps = reference.objectPath.steps();
    if (steps.size() != 1 || steps[0].isArray())
        return false;
    auto required = resource.jsonSchema.find("required");
    if (required == resource.jsonSchema.end() || !required->is_array())
        return false;
    return std::find(required->begin(), required->end(), Json(steps[0].property)) != required->end();
}

} // namespace

LoadOrder::LoadOrder(const Model &model)
{
    const std::vector<const ResourceSchema *> resources = model.resources();
    std::map<const ResourceSchema *, std::vector<Edge>> edges;
    for (const ResourceSchema *resource : resources) {
        std::vector<Edge> &out = edges[resource];
        for (const ReferenceMapping &reference : resource->references) {
            const bool required = isRequiredReference(*resource, reference);
            const std::string name = resource->resourceName + "." + reference.name;
            if (const ResourceSchema *target = model.findByName(reference.targetProjectName, reference.targetResourceName)) {
                if (target != resource)
                    out.push_back({target, required, name});
            } else if (const AbstractResource *abstract =
                           model.findAbstract(reference.targetProjectName, reference.targetResourceName)) {
                for (const ResourceSchema *subclass : abstract->subclasses)
                    if (subclass != resource)
                        out.push_back({subclass, required, name});
            }
        }
        for (const DescriptorMapping &descriptor : resource->descriptors)
            if (const ResourceSchema *target =
                    model.findByName(descriptor.descriptorProjectName, descriptor.descriptorResourceName))
                out.push_back({target, true, resource->resourceName + "." + descriptor.name});
    }

    for (const auto &[from, out] : edges)
        for (const Edge &edge : out)
            m_references.insert({from, edge.target});

    // Break cycles at optional edges: a depth-first search drops an optional edge that closes a cycle.
    std::map<const ResourceSchema *, int> state; // 0 new, 1 on stack, 2 done
    std::set<std::string> broken;
    std::function<void(const ResourceSchema *)> visit = [&](const ResourceSchema *node) {
        state[node] = 1;
        std::vector<Edge> &out = edges[node];
        for (auto it = out.begin(); it != out.end();) {
            if (state[it->target] == 1 && !it->required) {
                broken.insert(it->name);
                it = out.erase(it);
                continue;
            }
            if (state[it->target] == 0)
                visit(it->target);
            ++it;
        }
        state[node] = 2;
    };
    for (const ResourceSchema *resource : resources)
        if (state[resource] == 0)
            visit(resource);
    m_broken.assign(broken.begin(), broken.end());

    // Layer = length of the longest path to a resource with no references; a cycle of required
    // references (which a valid model does not have) is cut where it is found.
    std::map<const ResourceSchema *, int> depth;
    std::set<const ResourceSchema *> onPath;
    std::function<int(const ResourceSchema *)> layer = [&](const ResourceSchema *node) -> int {
        if (auto it = depth.find(node); it != depth.end())
            return it->second;
        if (!onPath.insert(node).second)
            return 0;
        int deepest = -1;
        for (const Edge &edge : edges[node])
            deepest = std::max(deepest, layer(edge.target));
        onPath.erase(node);
        depth[node] = deepest + 1;
        return deepest + 1;
    };
    for (const ResourceSchema *resource : resources) {
        const int l = layer(resource);
        if (static_cast<int>(m_layers.size()) <= l)
            m_layers.resize(l + 1);
        m_layers[l].push_back(resource);
        m_layerOf[resource] = l;
    }
    int rank = 0;
    for (std::vector<const ResourceSchema *> &group : m_layers) {
        std::sort(group.begin(), group.end(), [](const ResourceSchema *a, const ResourceSchema *b) {
            return std::tie(a->project->projectName, a->resourceName) < std::tie(b->project->projectName, b->resourceName);
        });
        for (const ResourceSchema *resource : group)
            m_rank[resource] = rank++;
    }
}

std::vector<const ResourceSchema *> LoadOrder::flat() const
{
    std::vector<const ResourceSchema *> out;
    for (const auto &group : m_layers)
        out.insert(out.end(), group.begin(), group.end());
    return out;
}

int LoadOrder::layerOf(const ResourceSchema *resource) const
{
    auto it = m_layerOf.find(resource);
    return it == m_layerOf.end() ? -1 : it->second;
}

bool LoadOrder::dependent(const ResourceSchema *a, const ResourceSchema *b) const
{
    if (a == b || m_references.count({a, b}) > 0 || m_references.count({b, a}) > 0)
        return true;
    // Subclasses of one abstract resource share its identities: which comes first decides which
    // one a conflict refuses.
    return !a->superclassResourceName.empty() && a->superclassResourceName == b->superclassResourceName
           && a->superclassProjectName == b->superclassProjectName;
}

int LoadOrder::rankOf(const ResourceSchema *resource) const
{
    auto it = m_rank.find(resource);
    return it == m_rank.end() ? static_cast<int>(m_rank.size()) : it->second;
}

} // namespace steward
