/** A CRM that counts the contacts it creates and answers with the newest one's id. */
export function crm() {
  let created = 0;
  return {
    get created() {
      return created;
    },
    create: () => ({ id: `crm-${++created}`, name: 'Alice' }),
  };
}
