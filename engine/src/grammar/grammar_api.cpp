// burrow::compileJsonSchemaGrammar (engine.h): the schema compiled, the
// model's vocabulary index attached.
#include "burrow/engine.h"
#include "grammar/token_constraint.h"

namespace burrow {

Result<std::shared_ptr<const Grammar>> compileJsonSchemaGrammar(const std::shared_ptr<const Model> &model,
                                                                std::string_view schemaJson,
                                                                const GrammarOptions &options)
{
    if (!model)
        return Status::error("grammar: no model");
    if (model->vocabSize() == 0)
        return Status::error("grammar: the model has no vocabulary");
    auto schema = json::parseJson(schemaJson, "schema");
    if (!schema)
        return schema.status();
    auto graph = grammar::compileSchema(*schema);
    if (!graph)
        return graph.status();
    auto g = std::make_shared<Grammar>();
    g->graph = std::move(graph.value());
    grammar::addAffixes(g->graph, options.prefix, options.suffix, &g->prefixNode, &g->suffixNode);
    g->vocab = grammar::VocabIndex::forModel(model);
    return std::shared_ptr<const Grammar>(std::move(g));
}

} // namespace burrow
