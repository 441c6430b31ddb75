// Optuna's key/value attribute tables, each keyed by its owner's id column:
// the SQL both backends write attributes with names them from here.
#ifndef HPO_STORAGE_ATTR_TABLES_H_
#define HPO_STORAGE_ATTR_TABLES_H_

namespace hpo {

struct AttrTable {
  const char* table;
  const char* owner;
};
constexpr AttrTable kStudyUserAttrs{"study_user_attributes", "study_id"};
constexpr AttrTable kTrialUserAttrs{"trial_user_attributes", "trial_id"};
constexpr AttrTable kTrialSystemAttrs{"trial_system_attributes", "trial_id"};

}  // namespace hpo

#endif  // HPO_STORAGE_ATTR_TABLES_H_
