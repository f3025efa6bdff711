-- Argo CD health check for nvidia.com DynamoComponentDeployment, for clusters where the Dynamo
-- operator reconciles the DCDs (dynamo-render's keep-sources or emit: dcd).
--
-- A DCD status has no state: the operator (api/v1beta1/dynamocomponentdeployment_types.go
-- IsReady, internal/controller/dynamocomponentdeployment_controller.go) writes the conditions
-- Available and DynamoComponentReady, and status.observedGeneration when a reconcile completes.
-- Available starts Unknown (reason Reconciling), is False with reason Reconciling when a
-- reconcile fails (the message says why), False with reason InvalidCheckpointConfiguration for a
-- checkpoint setting the operator refuses, and True once the Deployment or LeaderWorkerSet is
-- ready.
--
-- Degraded: Available False for a failed reconcile or a refused spec of the current generation.
-- Progressing: no conditions yet, the latest spec not observed, or Available not True. Healthy:
-- Available True. The message is the Available condition's. Written for Argo CD's Lua 5.1
-- (gopher-lua).
local hs = {}
local available = nil
if obj.status ~= nil and obj.status.conditions ~= nil then
  for _, c in ipairs(obj.status.conditions) do
    if c.type == "Available" then
      available = c
    end
  end
end
if available == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for the Dynamo operator to report status"
  return hs
end
local message = available.message
if message == nil or message == "" then
  message = available.reason
end
local generation = obj.metadata.generation
if available.status == "False" and (available.reason == "Reconciling" or available.reason == "InvalidCheckpointConfiguration") then
  -- A failure reported for an older generation is stale: the operator has not looked at the new spec.
  local current = available.observedGeneration == nil or generation == nil or available.observedGeneration >= generation
  if current then
    hs.status = "Degraded"
    hs.message = message or "DynamoComponentDeployment failed"
    return hs
  end
end
local observed = obj.status.observedGeneration
if generation ~= nil and (observed == nil or observed < generation) then
  hs.status = "Progressing"
  hs.message = "Waiting for the Dynamo operator to observe the latest spec"
  return hs
end
if available.status == "True" then
  hs.status = "Healthy"
  hs.message = message or "Available"
  return hs
end
hs.status = "Progressing"
hs.message = message or "Waiting for the component to become Available"
return hs
