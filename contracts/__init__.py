"""The contracts between workflows, activities and clients: inputs, results, activity names, queues and search
attributes. Pure types only (pydantic, temporalio.common), so the workflow sandbox passes them through."""
