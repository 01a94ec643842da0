// A write's change in Azure what-if's shape (src/azure/what-if.ts): a PATCH predicted as ARM applies it, each
// property a Create, Delete, Modify, Array or NoEffect, and what Azure sets itself never a change.
import t from "tap";
import { afterPatch, modifyOf, propertyChanges } from "../src/azure/what-if.ts";

const held = {
  id: "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/web-v001",
  name: "web-v001",
  etag: '"4"',
  sku: { name: "Standard_D2s_v3", capacity: 3 },
  tags: { app: "web", "vmss-ops.min": "1" },
  properties: {
    provisioningState: "Succeeded",
    timeCreated: "2026-12-01T10:00:00Z",
    uniqueId: "u-1",
    virtualMachineProfile: {
      networkProfile: {
        networkInterfaceConfigurations: [
          { name: "nic", properties: { ipConfigurations: [{ name: "ip", properties: { pools: [{ id: "p1" }] } }] } },
        ],
      },
    },
  },
};

t.test("a PATCH: objects merged, tags and arrays replaced whole", async (t) => {
  const after = afterPatch(held, {
    sku: { name: "Standard_D2s_v3", capacity: 5 },
    tags: { app: "web" },
  }) as typeof held;
  t.equal(after.sku.capacity, 5);
  t.same(after.tags, { app: "web" }, "a tag left out of a PATCH's tags is removed");
  t.equal(after.properties.provisioningState, "Succeeded", "what the PATCH does not name stays");
});

t.test("a resize: capacity Modify, a removed tag Delete, and nothing Azure sets", async (t) => {
  const change = modifyOf(held.id, held, afterPatch(held, { sku: { capacity: 5 }, tags: { app: "web" } }));
  t.equal(change.changeType, "Modify");
  t.same(change.delta, [
    { path: "sku.capacity", propertyChangeType: "Modify", before: 3, after: 5 },
    { path: "tags.vmss-ops.min", propertyChangeType: "Delete", before: "1" },
  ]);
});

t.test("a PUT of the resource as read, without what Azure sets: NoEffect, and the resource NoChange", async (t) => {
  const { id: _id, name: _name, etag: _etag, ...body } = held;
  const { provisioningState: _p, timeCreated: _c, uniqueId: _u, ...properties } = held.properties;
  const change = modifyOf(held.id, held, { ...body, properties });
  t.equal(change.changeType, "NoChange");
  t.same(
    change.delta?.map((d) => [d.path, d.propertyChangeType]),
    [
      ["id", "NoEffect"],
      ["name", "NoEffect"],
      ["etag", "NoEffect"],
      ["properties.provisioningState", "NoEffect"],
      ["properties.timeCreated", "NoEffect"],
      ["properties.uniqueId", "NoEffect"],
    ],
  );
});

t.test("an array: its changed elements as children by index; a nested name is the model's, not Azure's", async (t) => {
  const nics = held.properties.virtualMachineProfile.networkProfile.networkInterfaceConfigurations;
  const renamed = [
    { ...nics[0], name: "nic-2", properties: { ipConfigurations: [{ name: "ip", properties: { pools: [] } }] } },
  ];
  const [change] = propertyChanges({ nics }, { nics: renamed });
  t.same(change, {
    path: "nics",
    propertyChangeType: "Array",
    children: [
      {
        path: "0",
        propertyChangeType: "Modify",
        children: [
          { path: "name", propertyChangeType: "Modify", before: "nic", after: "nic-2" },
          {
            path: "properties.ipConfigurations",
            propertyChangeType: "Array",
            children: [
              {
                path: "0",
                propertyChangeType: "Modify",
                children: [
                  {
                    path: "properties.pools",
                    propertyChangeType: "Array",
                    children: [{ path: "0", propertyChangeType: "Delete", before: { id: "p1" } }],
                  },
                ],
              },
            ],
          },
        ],
      },
    ],
  });
  t.same(propertyChanges({ a: 1 }, { a: 1, pools: [] }), [], "an empty list where the read has none is no change");
});
