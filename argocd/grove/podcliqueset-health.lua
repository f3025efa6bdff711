-- Argo CD health check for grove.io/v1alpha1 PodCliqueSet (what dynamo-render renders for a
-- DynamoGraphDeployment on the Grove pathway). Argo CD has no built-in check for this kind and
-- would call a PodCliqueSet Healthy as soon as it exists.
--
-- Progressing: Grove has not reported status yet, has not observed the latest spec, or fewer
-- replicas are updated / available than desired. Degraded: the topology the PodCliqueSet asks
-- for is unavailable. Healthy: every desired replica is updated and available (a replica is
-- available when none of its cliques and scaling groups breaches its minAvailable).
-- Written for Argo CD's Lua 5.1 (gopher-lua).
local hs = {}
if obj.status == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for Grove to report status"
  return hs
end
local generation = obj.metadata.generation
local observed = obj.status.observedGeneration
if generation ~= nil and (observed == nil or observed < generation) then
  hs.status = "Progressing"
  hs.message = "Waiting for Grove to observe the latest spec"
  return hs
end
if obj.status.conditions ~= nil then
  for _, condition in ipairs(obj.status.conditions) do
    if condition.type == "TopologyLevelsUnavailable" and condition.status == "True" then
      hs.status = "Degraded"
      hs.message = condition.message or condition.reason or "Topology levels unavailable"
      return hs
    end
  end
end
local desired = 0
if obj.spec ~= nil and obj.spec.replicas ~= nil then
  desired = obj.spec.replicas
end
local updated = obj.status.updatedReplicas or 0
local available = obj.status.availableReplicas or 0
if updated < desired then
  hs.status = "Progressing"
  hs.message = "Updated replicas: " .. updated .. " of " .. desired
  return hs
end
if available < desired then
  hs.status = "Progressing"
  hs.message = "Available replicas: " .. available .. " of " .. desired
  return hs
end
hs.status = "Healthy"
hs.message = "Available replicas: " .. available .. " of " .. desired
return hs
